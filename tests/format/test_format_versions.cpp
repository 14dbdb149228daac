// Format versions: the kept format-v1 file (tests/format/data/README.md) must open with its known
// content in every later version, files written now must have exactly its schema, and a file newer
// than kFormatVersion is refused with a message naming it.
#include "format/session_meta.h"
#include "format/session_schema.h"
#include "format/session_writer.h"
#include "format/sqlite_database.h"
#include "model/session/session_database.h"
#include "model/session/session_loader.h"
#include "tests/support/event_counts_text.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_suite.h"

#include <QFile>
#include <QTest>

#include <string>
#include <vector>

using namespace stallscope;

namespace {

const std::string kV1File = STALLSCOPE_SOURCE_DIR "/tests/format/data/format-v1.stallscope";
const std::string kV2File = STALLSCOPE_SOURCE_DIR "/tests/format/data/format-v2.stallscope";

// Every row of `sql`, its columns as text joined by '|' ("NULL" for NULL).
std::vector<std::string> rowsOf(const format::Database& db, const std::string& sql) {
    format::Statement statement = db.prepare(sql);
    std::vector<std::string> rows;
    while (statement.step()) {
        std::string row;
        for (int c = 0; c < statement.columnCount(); ++c)
            row += (statement.isNull(c) ? std::string("NULL") : statement.text(c)) + "|";
        rows.push_back(row);
    }
    return rows;
}

// What defines a table beyond its SQL text: columns (name, type, not null, default, primary key
// position), foreign keys, indexes (including UNIQUE's automatic ones), and WITHOUT ROWID.
std::vector<std::string> tableShape(const format::Database& db, const std::string& table) {
    std::vector<std::string> shape;
    for (const char* pragma : {"table_info", "foreign_key_list", "index_list"})
        for (const std::string& row :
             rowsOf(db, "PRAGMA " + std::string(pragma) + "('" + table + "')"))
            shape.push_back(std::string(pragma) + ": " + row);
    const auto sql = rowsOf(db, "SELECT sql FROM sqlite_master WHERE name = '" + table + "'");
    shape.push_back(!sql.empty() && sql[0].find("WITHOUT ROWID") != std::string::npos
                        ? "without rowid"
                        : "rowid");
    return shape;
}

format::Database openReadOnly(const std::string& path) {
    format::Database db;
    std::string error;
    if (!db.open(path, format::Database::Mode::ReadOnly, &error))
        qWarning("%s: %s", path.c_str(), error.c_str());
    return db;
}

} // namespace

class TestFormatVersions : public QObject {
    Q_OBJECT
private slots:
    void newFilesHaveTheV1SchemaAndProcessRanks();
    void v1FileOpensWithItsContent();
    void v1FileDetailsReadBack();
    void v2FileOpensWithItsRanksAndNoSamples();
    void newerVersionIsRefusedNamingTheFile();
    void olderThanV1IsCorrupt();

private:
    testing::ScratchDir m_dir;
    // A writable copy of the v1 file with meta.format_version set to `version`.
    std::string v1CopyWithVersion(const char* name, const std::string& version);
};

// v2 only added process_ranks, v3 host_samples, v4 collective_calls, v5 capture_intervals: every
// v1 table and index is written as before.
void TestFormatVersions::newFilesHaveTheV1SchemaAndProcessRanks() {
    const std::string file = m_dir.file("new.stallscope");
    std::string error;
    auto writer = format::SessionWriter::create(file, &error);
    QVERIFY2(writer, error.c_str());
    QVERIFY(writer->finish(format::kStatusComplete));

    const format::Database v1 = openReadOnly(kV1File);
    const format::Database now = openReadOnly(file);
    QVERIFY(v1.isOpen() && now.isOpen());
    const std::string objects = "SELECT type, name, tbl_name FROM sqlite_master ORDER BY name";
    const std::vector<std::string> v1Objects = rowsOf(v1, objects);
    const std::string v1Kinds =
        "SELECT type, name, tbl_name FROM sqlite_master WHERE tbl_name "
        "NOT IN ('process_ranks', 'host_samples', 'collective_calls', 'capture_intervals') "
        "ORDER BY name";
    QCOMPARE(rowsOf(now, v1Kinds), v1Objects);
    QCOMPARE(rowsOf(now, "SELECT type, name FROM sqlite_master WHERE tbl_name = "
                         "'process_ranks' ORDER BY name"),
             (std::vector<std::string>{"table|process_ranks|",
                                       "index|sqlite_autoindex_process_ranks_1|"}));
    QCOMPARE(rowsOf(now, "SELECT type, name FROM sqlite_master WHERE tbl_name = "
                         "'host_samples' ORDER BY name"),
             (std::vector<std::string>{"table|host_samples|"}));
    QCOMPARE(rowsOf(now, "SELECT type, name FROM sqlite_master WHERE tbl_name = "
                         "'collective_calls' ORDER BY name"),
             (std::vector<std::string>{"table|collective_calls|"}));
    QCOMPARE(rowsOf(now, "SELECT type, name FROM sqlite_master WHERE tbl_name = "
                         "'capture_intervals' ORDER BY name"),
             (std::vector<std::string>{"table|capture_intervals|"}));
    QCOMPARE(v1Objects.size(), size_t(21 + 2 + 1)); // tables, finalize indexes, sources' UNIQUE
    for (const format::Table* table : format::kTables)
        QCOMPARE(
            rowsOf(now, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '" +
                            std::string(table->name) + "'"),
            std::vector<std::string>{"1|"});
    for (const std::string& table :
         rowsOf(v1, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")) {
        const std::string name = table.substr(0, table.size() - 1); // drop the '|'
        QCOMPARE(tableShape(now, name), tableShape(v1, name));
    }
    // The finalize indexes are still written from their own SQL text: compare it too.
    const std::string indexes = "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND "
                                "sql IS NOT NULL ORDER BY name";
    QCOMPARE(rowsOf(now, indexes), rowsOf(v1, indexes));
}

void TestFormatVersions::v1FileOpensWithItsContent() {
    auto result = model::SessionLoader::load(kV1File);
    QVERIFY2(result.ok(), result.error.c_str());
    const model::Session& s = *result.session;
    QCOMPARE(s.formatVersion, 1);
    QCOMPARE(s.status, std::string(format::kStatusComplete));
    QVERIFY(s.warning.empty());
    QCOMPARE(s.metaValue(format::meta::kCommand), std::string("python train.py --epochs 1"));
    QCOMPARE(s.metaValue(format::meta::kClock), std::string(format::kClockName));
    QCOMPARE(s.processes.size(), size_t(1));
    QCOMPARE(s.threads.size(), size_t(2));
    QCOMPARE(s.devices.size(), size_t(1));
    QCOMPARE(s.streams.size(), size_t(3));
    QCOMPARE(s.strings.size(), size_t(28 + 1)); // index 0 is the empty string
    QCOMPARE(s.counts, (format::EventCounts{.apiCalls = 193,
                                            .syncs = 61,
                                            .kernels = 60,
                                            .memcpys = 25,
                                            .memsets = 12,
                                            .ranges = 48}));
    QCOMPARE(s.startNs, int64_t(1000892374487));
    QVERIFY(s.endNs > s.startNs);
}

// A real v2 file (tests/format/data/README.md): two ranks, no host_samples table.
void TestFormatVersions::v2FileOpensWithItsRanksAndNoSamples() {
    auto result = model::SessionLoader::load(kV2File);
    QVERIFY2(result.ok(), result.error.c_str());
    const model::Session& s = *result.session;
    QCOMPARE(s.formatVersion, 2);
    QCOMPARE(s.status, std::string(format::kStatusComplete));
    QCOMPARE(s.processes.size(), size_t(2));
    for (int rank : {0, 1}) {
        QVERIFY(s.processes[rank].rank);
        QCOMPARE(s.processes[rank].rank->rank, int64_t(rank));
        QCOMPARE(s.processes[rank].rank->worldSize, std::optional<int64_t>(2));
    }
    QCOMPARE(s.counts, (format::EventCounts{.apiCalls = 112,
                                            .syncs = 32,
                                            .kernels = 50,
                                            .memcpys = 10,
                                            .memsets = 0,
                                            .ranges = 45}));
    QCOMPARE(s.hostSamples, int64_t(0));
    model::SessionDatabase db;
    std::string error;
    QVERIFY2(db.open(kV2File, &error), error.c_str());
    QVERIFY(!db.stack(1).empty());
    // No collective_calls (v4) in it: no kernel has a call.
    QVERIFY(s.collectiveCalls.empty());
}

void TestFormatVersions::v1FileDetailsReadBack() {
    model::SessionDatabase db;
    std::string error;
    QVERIFY2(db.open(kV1File, &error), error.c_str());
    QCOMPARE(db.modules().size(), size_t(5));
    QCOMPARE(db.modules().front().id, int64_t(1));
    QCOMPARE(db.modules().back().id, int64_t(5));
    QCOMPARE(db.cudaEvents().size(), size_t(36));
    QVERIFY(db.cudaEvents().front().recordNs <= db.cudaEvents().back().recordNs);
    QVERIFY(db.diagnostics().empty());
    QVERIFY(db.sourcePaths().empty());
    size_t frames = 0;
    for (int64_t stack = 1; stack <= 7; ++stack)
        frames += db.stack(stack).size();
    QVERIFY(frames >= 7);         // every stack has a frame
    QVERIFY(db.stack(8).empty()); // and there are 7
    QVERIFY(db.kernelDetails(1).has_value());
    QVERIFY(db.kernelDetails(60).has_value());
    QVERIFY(!db.kernelDetails(61).has_value());
}

std::string TestFormatVersions::v1CopyWithVersion(const char* name, const std::string& version) {
    const std::string file = m_dir.file(name);
    QFile::remove(QString::fromStdString(file));
    if (!QFile::copy(QString::fromStdString(kV1File), QString::fromStdString(file)))
        return {};
    QFile::setPermissions(QString::fromStdString(file),
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    format::Database db;
    std::string error;
    if (!db.open(file, format::Database::Mode::ReadWrite, &error))
        return {};
    format::Statement update = db.prepare("UPDATE meta SET value = ? WHERE key = ?");
    update.bind(1, version);
    update.bind(2, format::meta::kFormatVersion);
    return update.execute() ? file : std::string();
}

void TestFormatVersions::newerVersionIsRefusedNamingTheFile() {
    const std::string current = m_dir.file("current.stallscope");
    std::string error;
    auto writer = format::SessionWriter::create(current, &error);
    QVERIFY2(writer, error.c_str());
    QVERIFY(writer->finish(format::kStatusComplete));
    QVERIFY(model::SessionLoader::load(current).ok());

    const std::string newer =
        v1CopyWithVersion("newer.stallscope", std::to_string(format::kFormatVersion + 1));
    QVERIFY(!newer.empty());
    auto result = model::SessionLoader::load(newer);
    QVERIFY(!result.ok());
    QVERIFY2(result.error.rfind(newer + ": ", 0) == 0, result.error.c_str());
    QVERIFY2(result.error.find("newer than this Stallscope reads") != std::string::npos,
             result.error.c_str());
}

void TestFormatVersions::olderThanV1IsCorrupt() {
    const std::string zero = v1CopyWithVersion("zero.stallscope", "0");
    QVERIFY(!zero.empty());
    auto result = model::SessionLoader::load(zero);
    QVERIFY(!result.ok());
    QVERIFY2(result.error.find("corrupt session: format version 0") != std::string::npos,
             result.error.c_str());
}

STALLSCOPE_TEST_GUILESS_MAIN(TestFormatVersions)
#include "test_format_versions.moc"
