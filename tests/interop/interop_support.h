// Helpers of the interop suites: import a checked-in trace into a temporary session and count
// its syncs by the Python function they were issued from.
#pragma once

#include "model/interop/kineto_importer.h"
#include "model/session/session_database.h"
#include "model/session/session_loader.h"

#include <QFile>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <memory>
#include <string>

namespace interop {

using namespace stallscope::model;

inline std::string dataPath(const std::string& name) {
    return std::string(STALLSCOPE_SOURCE_DIR) + "/tests/interop/data/" + name;
}

struct Imported {
    KinetoImportResult import;
    std::unique_ptr<Session> session;
    SessionDatabase database;
    std::string error;
    bool ok() const { return session != nullptr; }
};

inline std::unique_ptr<Imported>
importTrace(const QTemporaryDir& dir, const std::string& trace,
            const std::string& sessionName = "session.stallscope") {
    auto imported = std::make_unique<Imported>();
    const std::string out = dir.filePath(QString::fromStdString(sessionName)).toStdString();
    imported->import = KinetoImporter::convert(trace, out);
    if (!imported->import.ok) {
        imported->error = imported->import.error;
        return imported;
    }
    LoadResult loaded = SessionLoader::load(out);
    if (!loaded.ok()) {
        imported->error = loaded.error;
        return imported;
    }
    imported->session = std::move(loaded.session);
    if (!imported->database.open(out, &imported->error))
        imported->session.reset();
    return imported;
}

// Converts `trace` into `dir` and checks the failure: one line that starts with the file's path
// and contains `expected`, and no session (nor its partial file) left behind.
inline void expectImportError(const QTemporaryDir& dir, const std::string& trace,
                              const std::string& expected) {
    QVERIFY2(!trace.empty(), "no trace: its write failed");
    const std::string out = dir.filePath("out.stallscope").toStdString();
    const KinetoImportResult result = KinetoImporter::convert(trace, out);
    QVERIFY2(!result.ok, trace.c_str());
    QVERIFY2(result.error.find(trace) == 0, result.error.c_str());
    QVERIFY2(result.error.find(expected) != std::string::npos, result.error.c_str());
    QVERIFY2(result.error.find('\n') == std::string::npos, result.error.c_str());
    QVERIFY(!QFile::exists(QString::fromStdString(out)));
    QVERIFY(!QFile::exists(QString::fromStdString(out + ".partial")));
}

// The innermost user frame (is_user with a file) of a stack: what the insight cards name.
inline FrameInfo userFrame(const SessionDatabase& database, uint32_t stackId) {
    for (const FrameInfo& frame : database.stack(stackId))
        if (frame.isUser.value_or(false) && !frame.file.empty())
            return frame;
    return {};
}

// "kind@function" -> number of syncs, e.g. "1@train_item" (1 = stream synchronize).
inline std::map<std::string, int> syncsBySite(const Session& session,
                                              const SessionDatabase& database) {
    std::map<std::string, int> counts;
    for (const HostLane& lane : session.hostLanes)
        for (size_t i = 0; i < lane.syncs.size(); ++i) {
            const FrameInfo frame = userFrame(database, lane.syncs.stackId[i]);
            ++counts[std::to_string(lane.syncs.kind[i]) + "@" +
                     (frame.function.empty() ? "<none>" : frame.function)];
        }
    return counts;
}

inline QString describe(const std::map<std::string, int>& counts) {
    QString text;
    for (const auto& [key, count] : counts)
        text += QString::fromStdString(key) + "=" + QString::number(count) + " ";
    return text;
}

} // namespace interop
