// The loader's validity checks on ids and kinds, each at its boundary: the largest valid value
// loads, one past it is rejected with one line that names the file, the table and the value.
// The bad files are the small session with one row edited through SQLite.
#include "format/session_schema.h"
#include "model/session/session_loader.h"
#include "tests/support/load_error.h"
#include "tests/support/small_session.h"
#include "tests/support/sqlite_edit.h"
#include "tests/support/test_suite.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace stallscope;

class TestLoaderValidity : public QObject {
    Q_OBJECT
private slots:
    void rejected_data();
    void rejected();
    void accepted_data();
    void accepted();

private:
    // The small session with `sql` applied, named after the data row; returns its path (empty when
    // the session cannot be written, which fails the test).
    std::string writeEdited(const QString& sql);
    QTemporaryDir m_dir;
};

std::string TestLoaderValidity::writeEdited(const QString& sql) {
    const QString name = QString(QTest::currentDataTag()).replace(' ', '-');
    const std::string file = m_dir.filePath(name + ".stallscope").toStdString();
    if (!testing::writeSmallSession(file))
        return {};
    testing::execSql(file, sql.toUtf8().constData());
    return file;
}

void TestLoaderValidity::rejected_data() {
    QTest::addColumn<QString>("sql");
    QTest::addColumn<QString>("expected");
    const QString lastKind = QString::number(format::kSyncKindMax + 1);
    struct Edit {
        const char* tag;
        QString sql;
        QString expected;
    };
    const Edit edits[] = {
        {"kernel name past the last string",
         "UPDATE kernels SET name_id = (SELECT max(id) + 1 FROM strings) WHERE id = 1",
         "kernels row 1 names unknown string "},
        {"kernel name negative", "UPDATE kernels SET name_id = -1 WHERE id = 1",
         "kernels row 1 names unknown string -1"},
        {"api call name past the last string",
         "UPDATE api_calls SET name_id = (SELECT max(id) + 1 FROM strings) WHERE id = 1",
         "api_calls row 1 names unknown string "},
        {"range name past the last string",
         "UPDATE ranges SET name_id = (SELECT max(id) + 1 FROM strings) WHERE id = 1",
         "ranges row 1 names unknown string "},
        {"string id 0", "UPDATE strings SET id = 0 WHERE id = 1",
         "strings row 0 breaks the string ids' run from 1 (expected id 1)"},
        {"sync kind 0", "UPDATE syncs SET kind = 0 WHERE id = 1", "syncs row 1 has unknown kind 0"},
        {"sync kind past the last", "UPDATE syncs SET kind = " + lastKind + " WHERE id = 1",
         "syncs row 1 has unknown kind " + lastKind},
        {"sync on unknown stream", "UPDATE syncs SET stream_id = 555 WHERE id = 1",
         "syncs row 1 names unknown stream 555"},
        {"sync on unknown thread", "UPDATE syncs SET thread_id = 999 WHERE id = 1",
         "syncs row 1 names unknown thread 999"},
        {"range depth 256", "UPDATE ranges SET depth = 256 WHERE id = 2",
         "ranges row 2 has depth 256"},
        {"range depth -1", "UPDATE ranges SET depth = -1 WHERE id = 2",
         "ranges row 2 has depth -1"},
        {"unknown status", "UPDATE meta SET value = 'paused' WHERE key = 'status'",
         "unknown status 'paused'"},
        {"version not a number", "UPDATE meta SET value = 'one' WHERE key = 'format_version'",
         "format version 'one' is not a number"},
        {"kernel ends 1 ns before its start",
         "UPDATE kernels SET end_ns = start_ns - 1 WHERE id = 1",
         "kernels row 1 ends before it starts"},
        {"row id past 2^32", "UPDATE kernels SET id = 4294967296 WHERE id = 1",
         "kernels row 4294967296 has an id past 2^32 (unsupported)"},
        {"rank equal to the world size",
         "INSERT INTO process_ranks(process_id, rank, world_size) VALUES (1, 2, 2)",
         "process_ranks row 1 has rank 2 outside its world size 2"},
        {"negative rank", "INSERT INTO process_ranks(process_id, rank) VALUES (1, -1)",
         "process_ranks row 1 has rank -1 outside"},
        {"rank of an unknown process", "INSERT INTO process_ranks(process_id, rank) VALUES (7, 0)",
         "process_ranks row 1 names unknown process 7"},
        {"world size 0", "INSERT INTO process_ranks(process_id, rank, world_size) VALUES (1, 0, 0)",
         "process_ranks row 1 has world_size 0 outside"},
        {"v2 without process_ranks", "DROP TABLE process_ranks", "missing table 'process_ranks'"},
        {"sample of an unknown stack",
         "INSERT INTO host_samples(thread_id, start_ns, end_ns, samples, stack_id) "
         "VALUES (1, 1000, 1000, 1, 999)",
         "host_samples row 1 names unknown stack 999"},
        {"sample of an unknown thread",
         "INSERT INTO host_samples(thread_id, start_ns, end_ns, samples, stack_id) "
         "VALUES (99, 1000, 1000, 1, 1)",
         "host_samples row 1 names unknown thread 99"},
        {"sample before time 0",
         "INSERT INTO host_samples(thread_id, start_ns, end_ns, samples, stack_id) "
         "VALUES (1, -1, 1000, 2, 1)",
         "host_samples row 1 has start_ns -1, outside the accepted times"},
        {"no samples in a run",
         "INSERT INTO host_samples(thread_id, start_ns, end_ns, samples, stack_id) "
         "VALUES (1, 1000, 1000, 0, 1)",
         "host_samples row 1 has samples 0 outside"},
        {"one sample over a span",
         "INSERT INTO host_samples(thread_id, start_ns, end_ns, samples, stack_id) "
         "VALUES (1, 1000, 1001, 1, 1)",
         "host_samples row 1 has one sample but ends after it starts"},
        {"samples ending before they start",
         "INSERT INTO host_samples(thread_id, start_ns, end_ns, samples, stack_id) "
         "VALUES (1, 2000, 1999, 3, 1)",
         "host_samples row 1 ends before it starts"},
        {"sample without a stack",
         "INSERT INTO host_samples(thread_id, start_ns, end_ns, samples, stack_id) "
         "VALUES (1, 1000, 1000, 1, 'x')",
         "host_samples row 1"},
        {"v3 without host_samples", "DROP TABLE host_samples", "missing table 'host_samples'"},
        {"call of an unknown process",
         "INSERT INTO collective_calls(process_id, correlation_id, function, datatype, count, "
         "bytes, calls) VALUES (7, 1, 'AllReduce', 'ncclFloat32', 1, 4, 1)",
         "collective_calls row 1 names unknown process 7"},
        {"call with a correlation id past 32 bits",
         "INSERT INTO collective_calls(process_id, correlation_id, function, datatype, count, "
         "bytes, calls) VALUES (1, 4294967296, 'AllReduce', 'ncclFloat32', 1, 4, 1)",
         "collective_calls row 1 has correlation_id 4294967296 outside"},
        {"call of no NCCL call",
         "INSERT INTO collective_calls(process_id, correlation_id, function, datatype, count, "
         "bytes, calls) VALUES (1, 1, 'AllReduce', 'ncclFloat32', 1, 4, 0)",
         "collective_calls row 1 has calls 0 outside"},
        {"call of negative bytes",
         "INSERT INTO collective_calls(process_id, correlation_id, function, datatype, count, "
         "bytes, calls) VALUES (1, 1, 'AllReduce', 'ncclFloat32', 1, -4, 1)",
         "collective_calls row 1 has bytes -4 outside"},
        {"call whose count is text",
         "INSERT INTO collective_calls(process_id, correlation_id, function, datatype, count, "
         "bytes, calls) VALUES (1, 1, 'AllReduce', 'ncclFloat32', 'many', 4, 1)",
         "collective_calls row 1"},
        {"v4 without collective_calls", "DROP TABLE collective_calls",
         "missing table 'collective_calls'"},
    };
    for (const Edit& edit : edits)
        QTest::newRow(edit.tag) << edit.sql << edit.expected;
}

void TestLoaderValidity::rejected() {
    QFETCH(QString, sql);
    QFETCH(QString, expected);
    const std::string file = writeEdited(sql);
    QVERIFY(!file.empty());
    testing::expectLoadError(file, expected);
}

// The valid side of each boundary above.
void TestLoaderValidity::accepted_data() {
    QTest::addColumn<QString>("sql");
    QTest::newRow("kernel name is the last string")
        << "UPDATE kernels SET name_id = (SELECT max(id) FROM strings) WHERE id = 1";
    QTest::newRow("sync kind 1") << "UPDATE syncs SET kind = 1 WHERE id = 1";
    QTest::newRow("sync kind is the last")
        << QString("UPDATE syncs SET kind = %1 WHERE id = 1").arg(format::kSyncKindMax);
    QTest::newRow("range depth 255") << "UPDATE ranges SET depth = 255 WHERE id = 2";
    QTest::newRow("zero-length kernel") << "UPDATE kernels SET end_ns = start_ns WHERE id = 1";
    QTest::newRow("row id 2^32 - 1") << "UPDATE kernels SET id = 4294967295 WHERE id = 1";
    QTest::newRow("last rank of its world")
        << "INSERT INTO process_ranks(process_id, rank, world_size) VALUES (1, 1, 2)";
    QTest::newRow("v1 file without process_ranks")
        << "DROP TABLE process_ranks; DROP TABLE host_samples; UPDATE meta SET value = '1' WHERE "
           "key = 'format_version'";
    QTest::newRow("v2 file without host_samples")
        << "DROP TABLE host_samples; UPDATE meta SET value = '2' WHERE key = 'format_version'";
    QTest::newRow("a run of samples over a span")
        << "INSERT INTO host_samples(thread_id, start_ns, end_ns, samples, stack_id) VALUES (1, "
           "1000, 2000, 3, 1)";
    QTest::newRow("samples up to 2^31 - 1")
        << "INSERT INTO host_samples(thread_id, start_ns, end_ns, samples, stack_id) VALUES (1, "
           "1000, 2000, 2147483647, 1)";
}

void TestLoaderValidity::accepted() {
    QFETCH(QString, sql);
    const std::string file = writeEdited(sql);
    QVERIFY(!file.empty());
    const auto result = model::SessionLoader::load(file);
    QVERIFY2(result.ok(), result.error.c_str());
    QCOMPARE(result.session->counts.kernels, int64_t(3));
    QCOMPARE(result.session->counts.syncs, int64_t(2));
}

STALLSCOPE_TEST_GUILESS_MAIN(TestLoaderValidity)
#include "test_loader_validity.moc"
