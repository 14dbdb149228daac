// Validate, then trust (issue 13): each crafted session is the small session broken by SQL edits,
// and must end in one exact error line naming the file, the table and the row — or, where the
// data is odd but legitimate, load and give the right numbers. The batch commands (--info,
// --insights, --export-chrome) are run on crafted files too: non-zero exit, the same line.
#include "format/session_schema.h"
#include "model/session/session_loader.h"
#include "model/testing/synthetic_session.h"
#include "tests/support/small_session.h"
#include "tests/support/sqlite_edit.h"
#include "tests/support/test_suite.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <limits>

using namespace stallscope;

namespace {

constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();

// Lets the NOT NULL columns of `table` hold NULL, as a crafted file may (the declared type does
// not bind what an edited schema lets in).
QString dropNotNull(const char* table) {
    return QString("PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, "
                   "'NOT NULL', '') WHERE name = '%1'; PRAGMA writable_schema = OFF;")
        .arg(table);
}

} // namespace

class TestSessionValidation : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void validSessionsLoadWithAllRows();
    void sparseRowIdsLoad();
    void syncStackMustNameAStack_data();
    void syncStackMustNameAStack();
    void streamDeviceMustNameADevice();
    void timesOutsideTheAcceptedRange_data();
    void timesOutsideTheAcceptedRange();
    void timesAtTheEdgesOfTheRangeLoad();
    void hugeDurationsSaturateTheSums();
    void realsAndNullsInIntegerColumns_data();
    void realsAndNullsInIntegerColumns();
    void textInIntegerColumns_data();
    void textInIntegerColumns();
    void danglingReferences_data();
    void danglingReferences();
    void unknownEnumsAndBadCounts_data();
    void unknownEnumsAndBadCounts();
    void stringIdBombIsRefused();
    void untimedRowsAreLeftOut();
    void formatVersionMustBeExact_data();
    void formatVersionMustBeExact();
    void threeThousandProcessesExport();
    void deepRecursiveStackIsRead();
    void deepStackOfLongNamesIsBounded();
    void batchCommandsNameFileTableAndRow_data();
    void batchCommandsNameFileTableAndRow();

private:
    // The small session with each SQL text applied in turn (one connection each), named after
    // the current test and data row; returns its path, empty when the session cannot be written
    // (which fails the test).
    std::string writeEdited(const QStringList& edits);
    // Loads `file` and compares the whole error line with "<file>: corrupt session: <expected>".
    void expectCorrupt(const std::string& file, const QString& expected);
    // The data row's `sql` edit is refused with its `expected` line.
    void refusesTheEditedRow();
    // Runs --export-chrome on `session` into a file named `name` in the test folder; its text
    // ("" when the export failed the test).
    QByteArray exportChrome(const std::string& session, const QString& name);
    struct Run {
        int exitCode = -1;
        QString out, err;
    };
    Run runStallscope(const QStringList& arguments);

    QTemporaryDir m_dir;
    int m_files = 0;
};

std::string TestSessionValidation::writeEdited(const QStringList& edits) {
    const QString name =
        QString("%1-%2.stallscope").arg(QTest::currentTestFunction()).arg(++m_files);
    const std::string file = m_dir.filePath(name).toStdString();
    if (!testing::writeSmallSession(file))
        return {};
    for (const QString& sql : edits)
        testing::execSql(file, sql.toUtf8().constData());
    return file;
}

void TestSessionValidation::expectCorrupt(const std::string& file, const QString& expected) {
    QVERIFY2(!file.empty(), "no session: its write failed");
    const auto result = model::SessionLoader::load(file);
    QVERIFY(!result.ok());
    QVERIFY(!result.cancelled);
    QCOMPARE(QString::fromStdString(result.error),
             QString::fromStdString(file) + ": corrupt session: " + expected);
}

void TestSessionValidation::refusesTheEditedRow() {
    QFETCH(QString, sql);
    QFETCH(QString, expected);
    expectCorrupt(writeEdited({sql}), expected);
}

QByteArray TestSessionValidation::exportChrome(const std::string& session, const QString& name) {
    const QString out = m_dir.filePath(name);
    const Run run = runStallscope({"--export-chrome", out, QString::fromStdString(session)});
    if (run.exitCode != 0)
        qWarning("--export-chrome: %s", qPrintable(run.err));
    QFile json(out);
    return run.exitCode == 0 && json.open(QIODevice::ReadOnly) ? json.readAll() : QByteArray();
}

TestSessionValidation::Run TestSessionValidation::runStallscope(const QStringList& arguments) {
    QProcess process;
    process.start(QStringLiteral(STALLSCOPE_EXECUTABLE), arguments);
    Run run;
    if (!process.waitForFinished(30000)) {
        process.kill();
        process.waitForFinished();
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

// The checks reject nothing that the writers write: the small session and a generated one load
// with every row.
void TestSessionValidation::validSessionsLoadWithAllRows() {
    const auto small = model::SessionLoader::load(writeEdited({}));
    QVERIFY2(small.ok(), small.error.c_str());
    const model::Session& s = *small.session;
    QCOMPARE(s.counts.apiCalls, int64_t(4));
    QCOMPARE(s.counts.kernels, int64_t(3));
    QCOMPARE(s.counts.memcpys, int64_t(1));
    QCOMPARE(s.counts.memsets, int64_t(1));
    QCOMPARE(s.counts.syncs, int64_t(2));
    QCOMPARE(s.counts.ranges, int64_t(2));
    QCOMPARE(s.processes.size(), size_t(1));
    QCOMPARE(s.threads.size(), size_t(2));
    QCOMPARE(s.devices.size(), size_t(1));
    QCOMPARE(s.streams.size(), size_t(2));
    QCOMPARE(s.strings.size(), size_t(7)); // "" and six names
    QCOMPARE(s.droppedRecords, int64_t(3));
    QCOMPARE(s.startNs, int64_t(1000));
    QCOMPARE(s.endNs, int64_t(100000));

    const std::string generated = m_dir.filePath("generated.stallscope").toStdString();
    model::SyntheticOptions options;
    options.targetEvents = 20'000;
    options.processes = 2;
    model::SyntheticStats stats;
    std::string error;
    QVERIFY2(model::writeSyntheticSession(generated, options, &stats, &error), error.c_str());
    const auto loaded = model::SessionLoader::load(generated);
    QVERIFY2(loaded.ok(), loaded.error.c_str());
    QCOMPARE(loaded.session->counts.total(), stats.events.total());
    QCOMPARE(loaded.session->counts.syncs, stats.events.syncs);
    QCOMPARE(loaded.session->counts.kernels, stats.events.kernels);
}

// Row ids far from 1, 2, 3, ... are odd but valid references: the events still find their
// thread and stream.
void TestSessionValidation::sparseRowIdsLoad() {
    const auto result = model::SessionLoader::load(
        writeEdited({"PRAGMA foreign_keys = OFF",
                     "UPDATE threads SET id = 9000000000 WHERE id = 2; "
                     "UPDATE syncs SET thread_id = 9000000000 WHERE thread_id = 2; "
                     "UPDATE streams SET id = 70000 WHERE id = 1; "
                     "UPDATE kernels SET stream_id = 70000 WHERE stream_id = 1; "
                     "UPDATE syncs SET stream_id = 70000 WHERE stream_id = 1"}));
    QVERIFY2(result.ok(), result.error.c_str());
    const model::Session& s = *result.session;
    QCOMPARE(s.threads.back().rowId, int64_t(9000000000));
    QCOMPARE(s.hostLanes.back().syncs.size(), size_t(1)); // the loader thread's copy sync
    QCOMPARE(s.hostLanes.front().syncs.size(), size_t(1));
    QCOMPARE(s.counts.kernels, int64_t(3));
    int32_t computeLane = -1;
    for (size_t l = 0; l < s.streamLanes.size(); ++l)
        if (s.streams[s.streamLanes[l].streamIndex].rowId == 70000)
            computeLane = static_cast<int32_t>(l);
    QVERIFY(computeLane >= 0);
    QCOMPARE(s.streamLanes[computeLane].kernels.size(), size_t(3));
    QCOMPARE(s.hostLanes.front().syncs.streamIndex[0], s.streamLanes[computeLane].streamIndex);
}

// The reported SEGV: a sync whose stack_id is -1 (or any id that no stacks row has).
void TestSessionValidation::syncStackMustNameAStack_data() {
    QTest::addColumn<QString>("stackId");
    QTest::newRow("-1") << "-1";
    QTest::newRow("0") << "0";
    QTest::newRow("one past the last") << "2";
    QTest::newRow("2^32 + 1") << "4294967297";
}

void TestSessionValidation::syncStackMustNameAStack() {
    QFETCH(QString, stackId);
    expectCorrupt(writeEdited({"UPDATE syncs SET stack_id = " + stackId + " WHERE id = 1"}),
                  "syncs row 1 names unknown stack " + stackId);
}

// The reported out-of-bounds read in the Chrome export: a stream whose device_id names no device.
void TestSessionValidation::streamDeviceMustNameADevice() {
    expectCorrupt(writeEdited({"UPDATE streams SET device_id = 77 WHERE id = 2"}),
                  "streams row 2 names unknown device 77");
}

void TestSessionValidation::timesOutsideTheAcceptedRange_data() {
    QTest::addColumn<QString>("sql");
    QTest::addColumn<QString>("expected");
    const QString range = ", outside the accepted times 0 <= t < 2^62 ns";
    QTest::newRow("-2^63 start")
        << "UPDATE kernels SET start_ns = -9223372036854775808 WHERE id = 2"
        << "kernels row 2 has start_ns -9223372036854775808" + range;
    QTest::newRow("2^63 - 1 end")
        << "UPDATE api_calls SET end_ns = 9223372036854775807 WHERE id = 1"
        << "api_calls row 1 has end_ns 9223372036854775807" + range;
    QTest::newRow("2^62 end") << "UPDATE syncs SET end_ns = 4611686018427387904 WHERE id = 2"
                              << "syncs row 2 has end_ns 4611686018427387904" + range;
    QTest::newRow("-1 start") << "UPDATE memsets SET start_ns = -1 WHERE id = 1"
                              << "memsets row 1 has start_ns -1" + range;
    QTest::newRow("process start") << "UPDATE processes SET start_ns = -5 WHERE id = 1"
                                   << "processes row 1 has start_ns -5" + range;
    QTest::newRow("process end") << "UPDATE processes SET end_ns = 9223372036854775807"
                                 << "processes row 1 has end_ns 9223372036854775807" + range;
    // end - start would overflow: rejected as a time, never subtracted.
    QTest::newRow("end < start by 2^63")
        << "UPDATE ranges SET start_ns = 9223372036854775807, end_ns = -9223372036854775808 "
           "WHERE id = 1"
        << "ranges row 1 has start_ns 9223372036854775807" + range;
    QTest::newRow("end before start") << "UPDATE memcpys SET end_ns = start_ns - 1 WHERE id = 1"
                                      << "memcpys row 1 ends before it starts";
}

void TestSessionValidation::timesOutsideTheAcceptedRange() {
    refusesTheEditedRow();
}

// 0 and 2^62 - 1 are accepted times: the session spans them exactly.
void TestSessionValidation::timesAtTheEdgesOfTheRangeLoad() {
    const auto result = model::SessionLoader::load(
        writeEdited({"UPDATE memsets SET start_ns = 0 WHERE id = 1",
                     QString("UPDATE processes SET end_ns = %1").arg(format::kTimeLimitNs - 1)}));
    QVERIFY2(result.ok(), result.error.c_str());
    QCOMPARE(result.session->startNs, int64_t(0));
    QCOMPARE(result.session->endNs, format::kTimeLimitNs - 1);
    QCOMPARE(result.session->durationNs(), format::kTimeLimitNs - 1);
}

// Accepted times may still add up past int64_t: three syncs each of almost 2^62 ns at one site.
// The site's blocked time saturates (it wrapped negative before, and UBSan aborted).
void TestSessionValidation::hugeDurationsSaturateTheSums() {
    const QString huge = QString::number(format::kTimeLimitNs - 1);
    const std::string file = writeEdited(
        {"UPDATE processes SET start_ns = 0, end_ns = " + huge,
         "UPDATE syncs SET start_ns = 0, end_ns = " + huge + ", thread_id = 1, stack_id = 1",
         "INSERT INTO syncs(thread_id, kind, start_ns, end_ns, correlation_id, stream_id, "
         "stack_id) SELECT thread_id, kind, start_ns, end_ns, 0, stream_id, stack_id FROM syncs "
         "WHERE id = 1"});
    QVERIFY(!file.empty());
    const Run run =
        runStallscope({"--insights", "--json", "--window", "all", QString::fromStdString(file)});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    const QJsonObject report = QJsonDocument::fromJson(run.out.toUtf8()).object();
    const QJsonArray sites = report["sites"].toArray();
    QVERIFY2(!sites.isEmpty(), qPrintable(run.out.left(2000)));
    const QJsonObject site = sites[0].toObject();
    QCOMPARE(site["count"].toInteger(), 3);
    // JSON numbers are doubles here: 2^63 - 1 reads as 2^63.
    QCOMPARE(site["blocked_ns"].toDouble(), double(kMaxInt64));
    QCOMPARE(report["summary"].toObject()["host_blocked_ns"].toDouble(), double(kMaxInt64));
}

// `table`: the table whose NOT NULL constraints the crafted file drops first ("" for none).
// Recorders before issue 14 wrote activity records cut short at teardown with both times 0: such
// a row is left out with a warning instead of stretching the session back to time 0. A row with
// only one time at 0 is not such a row (it ends before it starts, or starts at 0).
void TestSessionValidation::untimedRowsAreLeftOut() {
    const auto whole = model::SessionLoader::load(writeEdited({}));
    QVERIFY2(whole.ok(), whole.error.c_str());
    const auto cut = model::SessionLoader::load(
        writeEdited({"UPDATE kernels SET start_ns = 0, end_ns = 0 WHERE id = 1",
                     "UPDATE syncs SET start_ns = 0, end_ns = 0 WHERE id = 2"}));
    QVERIFY2(cut.ok(), cut.error.c_str());
    QCOMPARE(cut.session->counts.kernels, whole.session->counts.kernels - 1);
    QCOMPARE(cut.session->counts.syncs, whole.session->counts.syncs - 1);
    QCOMPARE(cut.session->startNs, whole.session->startNs);
    QCOMPARE(cut.session->endNs, whole.session->endNs);
    QVERIFY2(cut.session->warning.find("2 event(s) without times") != std::string::npos,
             cut.session->warning.c_str());
    QVERIFY(whole.session->warning.find("without times") == std::string::npos);
    expectCorrupt(writeEdited({"UPDATE kernels SET end_ns = 0 WHERE id = 1"}),
                  "kernels row 1 ends before it starts");
}

void TestSessionValidation::realsAndNullsInIntegerColumns_data() {
    QTest::addColumn<QString>("table");
    QTest::addColumn<QString>("sql");
    QTest::addColumn<QString>("expected");
    QTest::newRow("+Inf") << ""
                          << "UPDATE kernels SET start_ns = 1e999 WHERE id = 1"
                          << "kernels row 1 column start_ns holds a real, not an integer";
    QTest::newRow("-Inf") << ""
                          << "UPDATE syncs SET end_ns = -1e999 WHERE id = 2"
                          << "syncs row 2 column end_ns holds a real, not an integer";
    QTest::newRow("fraction") << ""
                              << "UPDATE memcpys SET bytes = 0.5 WHERE id = 1"
                              << "memcpys row 1 column bytes holds a real, not an integer";
    // SQLite stores NaN as NULL.
    QTest::newRow("NaN") << "api_calls"
                         << "UPDATE api_calls SET start_ns = 0.0 * 1e999 WHERE id = 3"
                         << "api_calls row 3 column start_ns is NULL";
    QTest::newRow("NULL thread") << "syncs"
                                 << "UPDATE syncs SET thread_id = NULL WHERE id = 1"
                                 << "syncs row 1 column thread_id is NULL";
    QTest::newRow("NULL stream") << "kernels"
                                 << "UPDATE kernels SET stream_id = NULL WHERE id = 3"
                                 << "kernels row 3 column stream_id is NULL";
    QTest::newRow("NULL process start") << "processes"
                                        << "UPDATE processes SET start_ns = NULL WHERE id = 1"
                                        << "processes row 1 column start_ns is NULL";
    QTest::newRow("NULL string") << "strings"
                                 << "UPDATE strings SET text = NULL WHERE id = 2"
                                 << "strings row 2 column text is NULL";
}

void TestSessionValidation::realsAndNullsInIntegerColumns() {
    QFETCH(QString, table);
    QFETCH(QString, sql);
    QFETCH(QString, expected);
    if (table.isEmpty()) {
        expectCorrupt(writeEdited({sql}), expected);
        return;
    }
    // A NULL in a NOT NULL column needs an edited schema, which the schema check refuses before
    // any row is read; the loader's own NULL check (`expected`) stands behind it.
    const std::string file = writeEdited({dropNotNull(table.toUtf8().constData()), sql});
    QVERIFY(!file.empty());
    const auto result = model::SessionLoader::load(file);
    QVERIFY(!result.ok());
    QVERIFY2(QString::fromStdString(result.error)
                 .startsWith(QString::fromStdString(file) + ": foreign schema: table '" + table +
                             "' is defined differently"),
             result.error.c_str());
}

// SQLite keeps text it cannot read as a number in an INTEGER column (typeof() = 'text').
void TestSessionValidation::textInIntegerColumns_data() {
    QTest::addColumn<QString>("sql");
    QTest::addColumn<QString>("expected");
    QTest::newRow("api call start") << "UPDATE api_calls SET start_ns = 'soon' WHERE id = 2"
                                    << "api_calls row 2 column start_ns holds text, not an integer";
    QTest::newRow("kernel stream") << "UPDATE kernels SET stream_id = '1x' WHERE id = 1"
                                   << "kernels row 1 column stream_id holds text, not an integer";
    QTest::newRow("sync kind") << "UPDATE syncs SET kind = 'stream' WHERE id = 1"
                               << "syncs row 1 column kind holds text, not an integer";
    QTest::newRow("sync stack") << "UPDATE syncs SET stack_id = 'top' WHERE id = 1"
                                << "syncs row 1 column stack_id holds text, not an integer";
    QTest::newRow("range depth") << "UPDATE ranges SET depth = 'deep' WHERE id = 2"
                                 << "ranges row 2 column depth holds text, not an integer";
    QTest::newRow("process pid") << "UPDATE processes SET pid = 'abc' WHERE id = 1"
                                 << "processes row 1 column pid holds text, not an integer";
    QTest::newRow("stream device") << "UPDATE streams SET device_id = 'gpu' WHERE id = 1"
                                   << "streams row 1 column device_id holds text, not an integer";
    QTest::newRow("string as blob") << "UPDATE strings SET text = x'00ff' WHERE id = 3"
                                    << "strings row 3 column text holds a blob, not text";
    QTest::newRow("dropped count") << "UPDATE dropped SET count = 'many'"
                                   << "dropped row 1 column count holds text, not an integer";
}

void TestSessionValidation::textInIntegerColumns() {
    refusesTheEditedRow();
}

void TestSessionValidation::danglingReferences_data() {
    QTest::addColumn<QString>("sql");
    QTest::addColumn<QString>("expected");
    QTest::newRow("thread's process") << "UPDATE threads SET process_id = 9 WHERE id = 2"
                                      << "threads row 2 names unknown process 9";
    QTest::newRow("device's process") << "UPDATE devices SET process_id = -3"
                                      << "devices row 1 names unknown process -3";
    QTest::newRow("api call's thread") << "UPDATE api_calls SET thread_id = 3 WHERE id = 4"
                                       << "api_calls row 4 names unknown thread 3";
    QTest::newRow("range's thread") << "UPDATE ranges SET thread_id = 0 WHERE id = 1"
                                    << "ranges row 1 names unknown thread 0";
    QTest::newRow("memcpy's stream") << "UPDATE memcpys SET stream_id = 3 WHERE id = 1"
                                     << "memcpys row 1 names unknown stream 3";
    QTest::newRow("sync's stream") << "UPDATE syncs SET stream_id = -1 WHERE id = 1"
                                   << "syncs row 1 names unknown stream -1";
    QTest::newRow("kernel's name") << "UPDATE kernels SET name_id = 7 WHERE id = 2"
                                   << "kernels row 2 names unknown string 7";
    QTest::newRow("range's name") << "UPDATE ranges SET name_id = -1 WHERE id = 2"
                                  << "ranges row 2 names unknown string -1";
}

void TestSessionValidation::danglingReferences() {
    refusesTheEditedRow();
}

void TestSessionValidation::unknownEnumsAndBadCounts_data() {
    QTest::addColumn<QString>("sql");
    QTest::addColumn<QString>("expected");
    QTest::newRow("sync kind 9") << "UPDATE syncs SET kind = 9 WHERE id = 2"
                                 << "syncs row 2 has unknown kind 9";
    QTest::newRow("copy kind 11") << "UPDATE memcpys SET copy_kind = 11"
                                  << "memcpys row 1 has unknown copy_kind 11";
    QTest::newRow("source kind -1") << "UPDATE memcpys SET src_kind = -1"
                                    << "memcpys row 1 has unknown src_kind -1";
    QTest::newRow("memset memory kind 8") << "UPDATE memsets SET dst_kind = 8"
                                          << "memsets row 1 has unknown dst_kind 8";
    QTest::newRow("negative bytes")
        << "UPDATE memcpys SET bytes = -4096"
        << "memcpys row 1 has bytes -4096 outside [0, 9223372036854775807]";
    QTest::newRow("correlation 2^32")
        << "UPDATE kernels SET correlation_id = 4294967296 WHERE id = 3"
        << "kernels row 3 has correlation_id 4294967296 outside [0, "
           "4294967295]";
    QTest::newRow("CUDA event -2") << "UPDATE syncs SET event_id = -2 WHERE id = 2"
                                   << "syncs row 2 has event_id -2 outside [0, 4294967295]";
    QTest::newRow("device index") << "UPDATE devices SET device_index = 4294967296"
                                  << "devices row 1 has device_index 4294967296 outside [0, "
                                     "2147483647]";
    QTest::newRow("dropped -1") << "UPDATE dropped SET count = -1"
                                << "dropped row 1 has count -1 outside [0, 9223372036854775807]";
    QTest::newRow("stack id 0") << "UPDATE stacks SET id = 0"
                                << "stacks row 0 has an id outside [1, 2^32)";
}

void TestSessionValidation::unknownEnumsAndBadCounts() {
    refusesTheEditedRow();
}

// The reported memory bomb: one string id of 1e8 in a small file sized a vector by it (3 GB).
// String ids must run from 1 without gaps; the first gap is refused before any allocation.
void TestSessionValidation::stringIdBombIsRefused() {
    expectCorrupt(writeEdited({"UPDATE strings SET id = 100000000 WHERE id = 6"}),
                  "strings row 100000000 breaks the string ids' run from 1 (expected id 6)");
}

void TestSessionValidation::formatVersionMustBeExact_data() {
    QTest::addColumn<QString>("version");
    QTest::newRow("1abc") << "1abc";
    QTest::newRow("leading space") << " 1";
    QTest::newRow("trailing space") << "1 ";
    QTest::newRow("plus sign") << "+1";
    QTest::newRow("1.0") << "1.0";
    QTest::newRow("empty") << "";
    QTest::newRow("hex") << "0x1";
}

void TestSessionValidation::formatVersionMustBeExact() {
    QFETCH(QString, version);
    expectCorrupt(
        writeEdited({"UPDATE meta SET value = '" + version + "' WHERE key = 'format_version'"}),
        "format version '" + version + "' is not a number");
}

// 3000 processes: the Chrome export's GPU pid (10^6 per process) passes 2^31 and must not wrap.
void TestSessionValidation::threeThousandProcessesExport() {
    const std::string file =
        writeEdited({"WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < "
                     "3001) INSERT INTO processes(id, pid, host, command, start_ns) SELECT i, "
                     "i, 'gpu-box', 'rank', 1000 FROM n",
                     "UPDATE devices SET process_id = 3001"});
    QVERIFY(!file.empty());
    const QByteArray text = exportChrome(file, "processes.json");
    // Process 3001 is the 3000th after the first: 10^6 * 3001 + device index 0.
    QVERIFY(text.contains("\"pid\":3001000000,"));
    QVERIFY(!text.contains("\"pid\":-"));
}

// A stack is a flat list of frames by position (no frame links that could form a cycle): one of
// 50,000 frames, the same Python frame over and over as in runaway recursion, is read once per
// stack, without recursion, by the analysis and the export.
void TestSessionValidation::deepRecursiveStackIsRead() {
    const std::string file = writeEdited(
        {"WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 50001) "
         "INSERT INTO stack_frames(stack_id, position, frame_id) SELECT 1, i, frame_id FROM "
         "stack_frames, n WHERE stack_id = 1 AND position = 1"});
    QVERIFY(!file.empty());
    const Run insights = runStallscope({"--insights", "--json", QString::fromStdString(file)});
    QVERIFY2(insights.exitCode == 0, qPrintable(insights.err));
    const QJsonArray events =
        QJsonDocument::fromJson(exportChrome(file, "deep.json")).object()["traceEvents"].toArray();
    qsizetype deepest = 0;
    for (const QJsonValue& event : events)
        deepest = std::max(deepest, event.toObject()["args"].toObject()["stack"].toArray().size());
    // A stack that claims 50,002 positions is read as its innermost kMaxStackDepth frames.
    QCOMPARE(deepest, qsizetype(format::kMaxStackDepth));
}

// Issue 40: one stack of 100,000 positions that all reuse one 50 KB frame name took 4.8 GB (and
// --export-chrome wrote it inline for every sync, past 12 GB). Now a stack costs at most
// kMaxStackDepth frames of kMaxFrameTextBytes, and the export writes it once.
void TestSessionValidation::deepStackOfLongNamesIsBounded() {
    const std::string file = writeEdited(
        {"UPDATE frames SET function = replace(hex(zeroblob(25000)), '0', 'x')",
         "WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 100001) "
         "INSERT INTO stack_frames(stack_id, position, frame_id) SELECT 1, i, frame_id FROM "
         "stack_frames, n WHERE stack_id = 1 AND position = 1",
         "UPDATE syncs SET stack_id = 1"});
    QVERIFY(!file.empty());
    const Run insights = runStallscope({"--insights", QString::fromStdString(file)});
    QVERIFY2(insights.exitCode == 0, qPrintable(insights.err));
    const QByteArray exported = exportChrome(file, "long-names.json");
    const QJsonArray events = QJsonDocument::fromJson(exported).object()["traceEvents"].toArray();
    int syncs = 0, stacksWritten = 0;
    for (const QJsonValue& event : events) {
        const QJsonObject args = event.toObject()["args"].toObject();
        if (!args.contains("stack_id"))
            continue;
        ++syncs;
        const QJsonArray stack = args["stack"].toArray();
        if (stack.isEmpty())
            continue;
        ++stacksWritten;
        QCOMPARE(stack.size(), qsizetype(format::kMaxStackDepth));
        QVERIFY(stack.first().toString().contains(QString(1000, 'x')));
        QVERIFY(stack.first().toString().size() < qsizetype(format::kMaxFrameTextBytes + 100));
    }
    QVERIFY(syncs > 1);
    QCOMPARE(stacksWritten, 1); // the one stack, with the first sync; the others name it
    QVERIFY2(exported.size() < qsizetype(2 * format::kMaxStackDepth * format::kMaxFrameTextBytes),
             QByteArray::number(exported.size()));
}

void TestSessionValidation::batchCommandsNameFileTableAndRow_data() {
    QTest::addColumn<QString>("sql");
    QTest::addColumn<QString>("expected");
    QTest::newRow("stack -1") << "UPDATE syncs SET stack_id = -1 WHERE id = 1"
                              << "syncs row 1 names unknown stack -1";
    QTest::newRow("stream on no device") << "UPDATE streams SET device_id = 77 WHERE id = 1"
                                         << "streams row 1 names unknown device 77";
    QTest::newRow("text time") << "UPDATE kernels SET end_ns = 'later' WHERE id = 3"
                               << "kernels row 3 column end_ns holds text, not an integer";
    QTest::newRow("string bomb") << "UPDATE strings SET id = 100000000 WHERE id = 6"
                                 << "strings row 100000000 breaks the string ids' run from 1 "
                                    "(expected id 6)";
}

void TestSessionValidation::batchCommandsNameFileTableAndRow() {
    QFETCH(QString, sql);
    QFETCH(QString, expected);
    const QString file = QString::fromStdString(writeEdited({sql}));
    QVERIFY(!file.isEmpty());
    const QString line = "stallscope: " + file + ": corrupt session: " + expected + "\n";
    const QString exported = m_dir.filePath("never-written.json");
    for (const QStringList& arguments :
         {QStringList{"--info", file}, QStringList{"--insights", file},
          QStringList{"--insights", "--json", file},
          QStringList{"--export-chrome", exported, file}}) {
        const Run run = runStallscope(arguments);
        QVERIFY2(run.exitCode == 1, qPrintable(arguments.join(' ') + ": " + run.err));
        QCOMPARE(run.err, line);
        QVERIFY(run.out.isEmpty());
    }
    QVERIFY(!QFile::exists(exported));
}

STALLSCOPE_TEST_GUILESS_MAIN(TestSessionValidation)
#include "test_session_validation.moc"
