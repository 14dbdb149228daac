// Bad input gets one clear line naming the file and the problem — never a crash, a hang or a
// silently partial model. Incomplete sessions open with a visible warning.
#include "format/session_schema.h"
#include "format/session_writer.h"
#include "model/session/session_loader.h"
#include "model/session/session_summary.h"
#include "tests/support/killed_writer.h"
#include "tests/support/load_error.h"
#include "tests/support/small_session.h"
#include "tests/support/sqlite_edit.h"
#include "tests/support/test_suite.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace stallscope;

namespace {

using testing::execSql;

void writeBytes(const std::string& file, const QByteArray& bytes) {
    QFile out(QString::fromStdString(file));
    QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
    out.write(bytes);
}

QByteArray readBytes(const std::string& file) {
    QFile in(QString::fromStdString(file));
    if (!in.open(QIODevice::ReadOnly))
        return {};
    return in.readAll();
}

} // namespace

class TestBadInput : public QObject {
    Q_OBJECT
private slots:
    void rejected_data();
    void rejected();
    void corruptPagesNeverCrash();
    void recordingSessionOpensWithWarning();
    void incompleteSessionOpensWithWarning();
    void killedWriterIsRefusedWithoutWriting();

private:
    QTemporaryDir m_dir;
};

void TestBadInput::rejected_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("expected");
    QTest::newRow("missing") << "missing"
                             << "no such file";
    QTest::newRow("directory") << "directory"
                               << "is a folder holding no session files (.stallscope)";
    QTest::newRow("zero bytes") << "empty"
                                << "empty file (0 bytes)";
    QTest::newRow("text file") << "text"
                               << "not a Stallscope session (not an SQLite database)";
    QTest::newRow("short header") << "short"
                                  << "truncated";
    QTest::newRow("truncated mid-page") << "truncated-mid"
                                        << "truncated";
    QTest::newRow("truncated at page") << "truncated-page"
                                       << "truncated";
    QTest::newRow("foreign sqlite") << "foreign"
                                    << "an SQLite database without a 'meta' table";
    QTest::newRow("foreign meta") << "foreign-meta"
                                  << "not a Stallscope session (table 'meta' is defined";
    QTest::newRow("newer version") << "newer"
                                   << "format version 99 is newer than this Stallscope";
    QTest::newRow("missing table") << "missing-table"
                                   << "missing table 'kernels'";
    QTest::newRow("unknown thread") << "unknown-thread"
                                    << "names unknown thread 999";
    QTest::newRow("unknown stream") << "unknown-stream"
                                    << "names unknown stream 555";
    QTest::newRow("bad interval") << "bad-interval"
                                  << "ends before it starts";
}

void TestBadInput::rejected() {
    QFETCH(QString, name);
    QFETCH(QString, expected);
    const std::string file = m_dir.filePath(name + ".stallscope").toStdString();
    const std::string good = m_dir.filePath("good-" + name + ".stallscope").toStdString();
    QVERIFY(testing::writeSmallSession(good));
    const QByteArray goodBytes = readBytes(good);

    if (name == "directory") {
        QVERIFY(QDir().mkpath(QString::fromStdString(file)));
    } else if (name == "empty") {
        writeBytes(file, {});
    } else if (name == "text") {
        writeBytes(file, "step,loss\n1,0.5\n");
    } else if (name == "short") {
        writeBytes(file, goodBytes.left(40));
    } else if (name == "truncated-mid") {
        writeBytes(file, goodBytes.left(goodBytes.size() / 2 + 100));
    } else if (name == "truncated-page") {
        writeBytes(file, goodBytes.left(4096));
    } else if (name == "foreign") {
        execSql(file, "CREATE TABLE samples(x INTEGER); INSERT INTO samples VALUES (1);");
    } else if (name == "foreign-meta") {
        execSql(file, "CREATE TABLE meta(key TEXT, value TEXT); INSERT INTO meta VALUES "
                      "('format_name', 'other-tool');");
    } else if (name != "missing") {
        QFile::copy(QString::fromStdString(good), QString::fromStdString(file));
        if (name == "newer")
            execSql(file, "UPDATE meta SET value = '99' WHERE key = 'format_version'");
        else if (name == "missing-table")
            execSql(file, "DROP TABLE kernels");
        else if (name == "unknown-thread")
            execSql(file, "UPDATE api_calls SET thread_id = 999 WHERE id = 2");
        else if (name == "unknown-stream")
            execSql(file, "UPDATE kernels SET stream_id = 555 WHERE id = 1");
        else if (name == "bad-interval")
            execSql(file, "UPDATE kernels SET end_ns = 0 WHERE id = 1");
    }

    testing::expectLoadError(file, expected);
}

// Garbage written over every page in turn: the loader must fail cleanly or load, never crash.
void TestBadInput::corruptPagesNeverCrash() {
    const std::string good = m_dir.filePath("corrupt-source.stallscope").toStdString();
    QVERIFY(testing::writeSmallSession(good));
    const QByteArray goodBytes = readBytes(good);
    const std::string file = m_dir.filePath("corrupt.stallscope").toStdString();
    const int pageSize = 4096;
    int failures = 0;
    for (int offset = 100; offset < goodBytes.size(); offset += pageSize) {
        QByteArray bytes = goodBytes;
        for (int i = 0; i < 200 && offset + i < bytes.size(); ++i)
            bytes[offset + i] = char(0xA5 ^ i);
        writeBytes(file, bytes);
        const auto result = model::SessionLoader::load(file);
        if (!result.ok()) {
            ++failures;
            QVERIFY2(QString::fromStdString(result.error).startsWith(QString::fromStdString(file)),
                     result.error.c_str());
        }
    }
    QVERIFY(failures > 0);
}

void TestBadInput::recordingSessionOpensWithWarning() {
    const std::string file = m_dir.filePath("recording.stallscope").toStdString();
    QVERIFY(testing::writeSmallSession(file, format::kStatusRecording));
    const auto result = model::SessionLoader::load(file);
    QVERIFY2(result.ok(), result.error.c_str());
    QCOMPARE(result.session->status, std::string("recording"));
    QVERIFY(result.session->warning.find("did not finish") != std::string::npos);
    QCOMPARE(result.session->counts.kernels, int64_t(3));
    const std::string summary = model::SessionSummary::of(*result.session).toText();
    QVERIFY2(summary.find("incomplete (recording did not finish)") != std::string::npos,
             summary.c_str());
}

void TestBadInput::incompleteSessionOpensWithWarning() {
    const std::string file = m_dir.filePath("incomplete.stallscope").toStdString();
    QVERIFY(testing::writeSmallSession(file, format::kStatusIncomplete));
    const auto result = model::SessionLoader::load(file);
    QVERIFY2(result.ok(), result.error.c_str());
    QVERIFY(result.session->warning.find("incomplete") != std::string::npos);
}

// A writer killed with SIGKILL between commits: the file opens with everything committed, says
// it was cut short, and holds nothing of the uncommitted transaction.
void TestBadInput::killedWriterIsRefusedWithoutWriting() {
    const std::string file = m_dir.filePath("killed.stallscope").toStdString();
    QVERIFY(testing::writeKilledSession(file));

    // Its committed rows are in the WAL, which SQLite reads only by writing beside the file:
    // the session layer says so and writes nothing (model/interop/side_file_snapshot.h reads a
    // copy, tests/interop/test_side_file_snapshot.cpp).
    const QStringList before = QDir(m_dir.path()).entryList(QDir::Files | QDir::Hidden);
    const auto result = model::SessionLoader::load(file);
    QVERIFY(!result.ok());
    QVERIFY2(QString::fromStdString(result.error)
                 .startsWith(QString::fromStdString(file) +
                             ": has transactions not yet in the file: its write-ahead log"),
             result.error.c_str());
    QCOMPARE(QDir(m_dir.path()).entryList(QDir::Files | QDir::Hidden), before);
}

STALLSCOPE_TEST_GUILESS_MAIN(TestBadInput)
#include "test_bad_input.moc"
