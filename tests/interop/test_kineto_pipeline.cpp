// The pipelined import (JSON read on a thread of its own, kineto_trace_reader.h) against the
// sequential one: on every real trace of data/ both write the same session file, table by table
// and row by row, and load into the same lanes (event counts, first and last event of each lane,
// sums of durations), and so do Stallscope's own exports (stacks); on bad input both give the same
// one-line error naming the file, whichever thread found it; cancellation stops both; an exception
// of the converting side reaches the caller without leaving the reading thread running. Runs under
// ThreadSanitizer (label `threads`).
#include "tests/interop/interop_support.h"

#include "format/sqlite_database.h"
#include "model/interop/chrome_trace_export.h"
#include "model/interop/kineto_event_pipe.h"
#include "tests/support/gzip.h"
#include "tests/support/test_failure.h"
#include "tests/support/test_suite.h"
#include "tests/support/write_file.h"

#include <QDir>
#include <QFile>

#include <new>

using namespace interop;

namespace {

// Every table of a session file as text, rows ordered by all their columns (some tables have no
// rowid); a statement that cannot be prepared shows as such.
std::string dumpTables(const std::string& path) {
    using stallscope::format::Database;
    Database db;
    std::string error;
    if (!db.open(path, Database::Mode::ReadOnly, &error))
        return "cannot open: " + error;
    std::vector<std::string> tables;
    auto names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    while (names.step())
        tables.push_back(names.text(0));
    std::string dump;
    for (const std::string& table : tables) {
        dump += "table " + table + "\n";
        const int columns = db.prepare("SELECT * FROM \"" + table + "\"").columnCount();
        std::string order;
        for (int column = 1; column <= columns; ++column)
            order += (column > 1 ? ", " : "") + std::to_string(column);
        auto rows = db.prepare("SELECT * FROM \"" + table + "\" ORDER BY " + order);
        if (!rows.prepared())
            dump += "cannot read: " + rows.error() + "\n";
        while (rows.step()) {
            for (int column = 0; column < rows.columnCount(); ++column)
                dump += (rows.isNull(column) ? "NULL" : rows.text(column)) + "|";
            dump += "\n";
        }
    }
    return dump;
}

// What the loaded session holds per lane: counts, first and last event, sums of durations.
template <class Columns> std::string describeColumns(const char* what, const Columns& columns) {
    if (columns.empty())
        return std::string(what) + " 0\n";
    int64_t sum = 0;
    for (size_t i = 0; i < columns.size(); ++i)
        sum += columns.duration(i);
    return std::string(what) + " " + std::to_string(columns.size()) + " first " +
           std::to_string(columns.start.front()) + " last " + std::to_string(columns.end.back()) +
           " sum " + std::to_string(sum) + "\n";
}

std::string describeLanes(const Session& session) {
    std::string text = "events " + std::to_string(session.counts.total()) + " span " +
                       std::to_string(session.startNs) + ".." + std::to_string(session.endNs) +
                       "\n";
    for (const HostLane& lane : session.hostLanes) {
        text += "thread " + session.threadLabel(session.threads[lane.threadIndex]) + "\n";
        text += describeColumns("api calls", lane.apiCalls);
        text += describeColumns("syncs", lane.syncs);
        for (const RangeColumns& ranges : lane.rangesByDepth)
            text += describeColumns("ranges", ranges);
    }
    for (const StreamLane& lane : session.streamLanes) {
        text += "stream " + session.streamLabel(session.streams[lane.streamIndex]) + "\n";
        text += describeColumns("kernels", lane.kernels);
        text += describeColumns("memcpys", lane.memcpys);
        text += describeColumns("memsets", lane.memsets);
    }
    return text;
}

KinetoImportResult convertWith(const std::string& trace, const std::string& out, bool pipelined,
                               const std::atomic<bool>* cancel = nullptr) {
    KinetoImportOptions options;
    options.pipelined = pipelined;
    options.cancel = cancel;
    options.output.replaceExisting = true;
    return KinetoImporter::convert(trace, out, options);
}

// A sink that throws where the converter would run out of memory.
class ThrowingSink final : public KinetoEventSink {
public:
    explicit ThrowingSink(int64_t throwAt) : m_throwAt(throwAt) {}
    void onDeviceProperties(const KinetoDeviceProperties&) override {}
    void onRank(int64_t) override {}
    bool onEvent(const KinetoEvent&) override {
        if (++m_events == m_throwAt)
            throw std::bad_alloc();
        return true;
    }
    int64_t events() const { return m_events; }

private:
    int64_t m_throwAt;
    int64_t m_events = 0;
};

} // namespace

class TestKinetoPipeline : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    // Empty when the write failed (which failed the test).
    std::string write(const QString& name, const QByteArray& bytes) {
        return stallscope::testing::writeFile(m_dir, name, bytes).toStdString();
    }
    std::string out(const char* name) const { return m_dir.filePath(name).toStdString(); }

    // The text of a real trace, many events past the first batches; empty when it cannot be read
    // (which fails the test).
    static QByteArray realTraceText() {
        QFile file(QString::fromStdString(dataPath("item_loop.json.gz")));
        if (!file.open(QIODevice::ReadOnly)) {
            STALLSCOPE_FAIL("cannot read %s: %s", qPrintable(file.fileName()),
                            qPrintable(file.errorString()));
            return {};
        }
        return stallscope::testing::gunzip(file.readAll()).value_or(QByteArray());
    }

    // Both modes fail on `trace` with the same error, which names it and says `expected`.
    void expectSameError(const std::string& trace, const std::string& expected) {
        QVERIFY2(!trace.empty(), "no trace: its write failed");
        const KinetoImportResult sequential = convertWith(trace, out("failed1.stallscope"), false);
        const KinetoImportResult pipelined = convertWith(trace, out("failed2.stallscope"), true);
        QVERIFY(!sequential.ok && !pipelined.ok);
        QCOMPARE(pipelined.error, sequential.error);
        QVERIFY2(pipelined.error.find(trace) == 0, pipelined.error.c_str());
        QVERIFY2(pipelined.error.find(expected) != std::string::npos, pipelined.error.c_str());
        QVERIFY(!QFile::exists(QString::fromStdString(out("failed1.stallscope"))));
        QVERIFY(!QFile::exists(QString::fromStdString(out("failed2.stallscope"))));
    }

private slots:
    void realTracesGiveTheSameSession() {
        const QDir data(QString::fromStdString(dataPath("")));
        const QStringList traces = data.entryList({"*.json.gz"});
        QVERIFY(traces.size() >= 10);
        for (const QString& name : traces) {
            const std::string trace = data.filePath(name).toStdString();
            const KinetoImportResult sequential = convertWith(trace, out("seq.stallscope"), false);
            const KinetoImportResult pipelined = convertWith(trace, out("pipe.stallscope"), true);
            QVERIFY2(sequential.ok, sequential.error.c_str());
            QVERIFY2(pipelined.ok, pipelined.error.c_str());
            QCOMPARE(pipelined.stats.events, sequential.stats.events);
            QVERIFY2(pipelined.stats.events > int64_t(kPipeBatchEvents), qPrintable(name));
            QCOMPARE(pipelined.stats.jsonBytes, sequential.stats.jsonBytes);
            QCOMPARE(dumpTables(out("pipe.stallscope")), dumpTables(out("seq.stallscope")));
            const LoadResult a = SessionLoader::load(out("seq.stallscope"));
            const LoadResult b = SessionLoader::load(out("pipe.stallscope"));
            QVERIFY(a.ok() && b.ok());
            QVERIFY(a.session->counts.total() > 0);
            QCOMPARE(describeLanes(*b.session), describeLanes(*a.session));
        }
    }

    // Stallscope's own export of a recording: "sync" events with their stacks, the process span,
    // the "stallscope" object; the same session from both, with its stacks.
    void stallscopeExportGivesTheSameSession() {
        const std::string recording =
            std::string(STALLSCOPE_SOURCE_DIR) + "/resources/sample.stallscope";
        const LoadResult loaded = SessionLoader::load(recording);
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        SessionDatabase database;
        std::string error;
        QVERIFY2(database.open(recording, &error), error.c_str());
        const std::string exported = out("export.json");
        QVERIFY2(exportChromeTrace(*loaded.session, database, exported, {}, &error), error.c_str());
        const KinetoImportResult sequential = convertWith(exported, out("seq.stallscope"), false);
        const KinetoImportResult pipelined = convertWith(exported, out("pipe.stallscope"), true);
        QVERIFY2(sequential.ok && pipelined.ok, (sequential.error + pipelined.error).c_str());
        QVERIFY(pipelined.stats.syncs > 0);
        const std::string tables = dumpTables(out("pipe.stallscope"));
        QCOMPARE(tables, dumpTables(out("seq.stallscope")));
        QVERIFY(tables.find("table stack_frames\n1|") != std::string::npos); // stacks came through
    }

    // Found by the reading thread, late in the file: a value out of range, malformed JSON, a
    // string over the limit, a truncated .gz.
    void errorsOnTheReadingThreadNameTheFile() {
        QByteArray text = realTraceText();
        QVERIFY(!text.isEmpty());
        const int lastEvent = text.lastIndexOf("\"ph\":"); // the last event's first member
        QVERIFY(lastEvent > text.size() / 2);
        QByteArray outOfRange = text;
        outOfRange.insert(lastEvent, "\"ts\": 1e300, ");
        expectSameError(write("range.json", outOfRange), "\"ts\" 1e300 is out of range");
        QByteArray malformed = text;
        malformed.insert(lastEvent, "\"ts\" 1, ");
        expectSameError(write("malformed.json", malformed), "malformed JSON at byte");
        QByteArray longString = text;
        longString.insert(lastEvent, "\"x\": \"" + QByteArray(3 << 20, 'x') + "\", ");
        expectSameError(write("long.json", longString), jsonValueTooLongError());
        const QByteArray compressed = stallscope::testing::gzip(text);
        QVERIFY(!compressed.isEmpty());
        expectSameError(write("cut.json.gz", compressed.left(compressed.size() - 100)),
                        "truncated");
    }

    // Cancelled from the start: the converting side's poll stops the reading side.
    void cancellationStopsBothThreads() {
        QByteArray big = R"({"traceEvents": [)";
        for (int i = 0; i < 200000; ++i)
            big +=
                R"({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1, "dur": 1},)";
        big +=
            R"({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1}]})";
        const std::string trace = write("big.json", big);
        QVERIFY(!trace.empty());
        std::atomic<bool> cancel{true};
        const KinetoImportResult result =
            convertWith(trace, out("cancelled.stallscope"), true, &cancel);
        QVERIFY(!result.ok);
        QVERIFY(result.cancelled);
        QVERIFY(result.stats.events < 200000); // stopped at the first poll, not read to the end
        QVERIFY(!QFile::exists(QString::fromStdString(out("cancelled.stallscope"))));
    }

    // An exception on the converting side (out of memory) stops the reading thread and reaches
    // the caller, at the first event and with batches queued.
    void exceptionsReachTheCaller() {
        const std::string trace = dataPath("item_loop.json.gz");
        for (const int64_t throwAt : {int64_t(1), int64_t(3000)}) { // item_loop: 4,975 events
            KinetoInputStream stream;
            std::string error;
            QVERIFY(stream.open(trace, &error));
            ThrowingSink sink(throwAt);
            bool thrown = false;
            try {
                readKinetoEvents(stream, sink, true);
            } catch (const std::bad_alloc&) {
                thrown = true;
            }
            QVERIFY(thrown);
            QCOMPARE(sink.events(), throwAt);
        }
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestKinetoPipeline)
#include "test_kineto_pipeline.moc"
