// format::Database / format::Statement: the one SQLite wrapper (writer, loader, symbolizer,
// recorder). Errors come back as values and messages, never as exceptions.
#include "format/session_tables.h"
#include "format/sqlite_database.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_suite.h"

#include <QTest>

#include <algorithm>

using namespace stallscope;

class TestSqliteDatabase : public QObject {
    Q_OBJECT
private slots:
    void openModes();
    void readOnlyChecksEveryPagesCells();
    void bindStepAndRead();
    void errorsAreReported();
    void movedStatementStaysUsable();
    void generatedSqlNamesEveryColumn();

private:
    testing::ScratchDir m_dir;
};

void TestSqliteDatabase::openModes() {
    format::Database db;
    std::string error;
    QVERIFY(!db.open(m_dir.file("missing.db"), format::Database::Mode::ReadOnly, &error));
    QVERIFY(!error.empty());
    QVERIFY(!db.isOpen());
    QVERIFY(!db.open(m_dir.file("missing.db"), format::Database::Mode::ReadWrite, &error));
    QVERIFY2(db.open(m_dir.file("created.db"), format::Database::Mode::Create, &error),
             error.c_str());
    QVERIFY(db.exec("CREATE TABLE t (x INTEGER)"));
    QVERIFY(db.close());

    format::Database readOnly;
    QVERIFY(readOnly.open(m_dir.file("created.db"), format::Database::Mode::ReadOnly, &error));
    QVERIFY(!readOnly.exec("INSERT INTO t VALUES (1)", &error));
    QVERIFY2(error.find("readonly") != std::string::npos, error.c_str());
}

// A fuzzed session whose api_calls leaf has cells running off the end of their page. Unchecked,
// SQLite reads them on into the memory after the page buffer, whose contents vary from run to
// run (the sqlite3 shell counted a different largest id each time, the loader named a different
// problem each time); checked, every read of the table is refused the same way.
void TestSqliteDatabase::readOnlyChecksEveryPagesCells() {
    format::Database written;
    std::string error;
    QVERIFY(written.open(m_dir.file("checked.db"), format::Database::Mode::Create, &error));
    QVERIFY(written.exec("CREATE TABLE t (x INTEGER)"));
    QVERIFY(written.close());
    for (const auto& [mode, checked] : {std::pair{format::Database::Mode::ReadOnly, 1},
                                        std::pair{format::Database::Mode::ReadWrite, 0}}) {
        format::Database db;
        QVERIFY(db.open(m_dir.file("checked.db"), mode, &error));
        format::Statement setting = db.prepare("PRAGMA cell_size_check");
        QVERIFY(setting.step());
        QCOMPARE(setting.integer(0), int64_t(checked)); // writers write their own files
    }

    const std::string corrupt = STALLSCOPE_SOURCE_DIR
        "/tests/fuzz/regressions/fuzz_session_file/cell-off-end-of-page.stallscope";
    format::Database db;
    QVERIFY2(db.open(corrupt, format::Database::Mode::ReadOnly, &error), error.c_str());
    for (int attempt = 0; attempt < 3; ++attempt) {
        format::Statement ids = db.prepare("SELECT * FROM api_calls");
        QVERIFY(ids.prepared());
        int64_t largest = 0;
        while (ids.step())
            largest = std::max(largest, ids.integer(0));
        QVERIFY2(ids.failed(), std::to_string(largest).c_str());
        QVERIFY2(db.lastMessage().find("malformed") != std::string::npos, db.lastMessage().c_str());
    }
}

void TestSqliteDatabase::bindStepAndRead() {
    format::Database db;
    QVERIFY(db.open(m_dir.file("rows.db"), format::Database::Mode::Create, nullptr));
    QVERIFY(db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER, s TEXT)"));
    format::Statement insert = db.prepare("INSERT INTO t(n, s) VALUES (?, ?)", true);
    insert.bind(1, int64_t{-5});
    insert.bind(2, std::string_view()); // a null view is stored as "", not NULL
    QVERIFY(insert.execute());
    QCOMPARE(db.lastInsertRowId(), int64_t(1));
    insert.bind(1, std::optional<int64_t>());
    insert.bind(2, std::optional<std::string>("last"));
    QVERIFY(insert.execute());
    QCOMPARE(db.lastInsertRowId(), int64_t(2));

    format::Statement rows = db.prepare("SELECT id, n, s FROM t ORDER BY id");
    QCOMPARE(rows.columnCount(), 3);
    QVERIFY(rows.step());
    QCOMPARE(rows.integer(1), int64_t(-5));
    QVERIFY(!rows.isNull(2));
    QCOMPARE(rows.text(2), std::string());
    QVERIFY(rows.step());
    QVERIFY(rows.isNull(1));
    QCOMPARE(rows.text(2), std::string("last"));
    QVERIFY(!rows.step());
    QVERIFY(!rows.failed());
    rows.reset();
    QVERIFY(rows.step()); // from the first row again
    QCOMPARE(rows.integer(0), int64_t(1));
}

void TestSqliteDatabase::errorsAreReported() {
    format::Database db;
    QVERIFY(db.open(m_dir.file("errors.db"), format::Database::Mode::Create, nullptr));
    format::Statement bad = db.prepare("SELECT nope FROM nowhere");
    QVERIFY(!bad.prepared());
    QVERIFY(bad.failed());
    QVERIFY2(bad.error().find("no such table") != std::string::npos, bad.error().c_str());
    QVERIFY2(bad.error().find("SELECT nope FROM nowhere") != std::string::npos,
             bad.error().c_str());
    QVERIFY(!bad.step());
    QVERIFY(!bad.execute());

    QVERIFY(db.exec("CREATE TABLE u (x INTEGER NOT NULL)"));
    format::Statement insert = db.prepare("INSERT INTO u(x) VALUES (?)");
    insert.bindNull(1);
    QVERIFY(!insert.execute());
    QVERIFY2(insert.error().find("NOT NULL") != std::string::npos, insert.error().c_str());

    format::Database closed;
    QVERIFY(closed.prepare("SELECT 1").failed());
    std::string error;
    QVERIFY(!closed.exec("SELECT 1", &error));
    QVERIFY(!error.empty());
}

void TestSqliteDatabase::movedStatementStaysUsable() {
    format::Database db;
    QVERIFY(db.open(m_dir.file("moves.db"), format::Database::Mode::Create, nullptr));
    format::Statement first = db.prepare("SELECT 42");
    format::Statement second = std::move(first);
    QVERIFY(!first.prepared());
    QVERIFY(second.step());
    QCOMPARE(second.integer(0), int64_t(42));
    format::Database moved = std::move(db);
    QVERIFY(!db.isOpen());
    QVERIFY(moved.isOpen());
}

void TestSqliteDatabase::generatedSqlNamesEveryColumn() {
    QCOMPARE(format::insertSql(format::tables::kStrings), std::string("INSERT INTO strings(text) "
                                                                      "VALUES (?)"));
    QCOMPARE(
        format::insertSql(format::tables::kStackFrames),
        std::string("INSERT INTO stack_frames(stack_id, position, frame_id) VALUES (?, ?, ?)"));
    QCOMPARE(format::selectSql(format::tables::kStacks),
             std::string("SELECT id, hash, depth FROM stacks"));
    // A subset, in the order asked (the names are checked against the descriptor when built).
    QCOMPARE(format::selectSql<format::tables::kMemsets>({"dst_kind", "id"}),
             std::string("SELECT dst_kind, id FROM memsets"));
    QVERIFY(format::hasColumn(format::tables::kSyncs, "stack_id"));
    QVERIFY(!format::hasColumn(format::tables::kSyncs, "stackid"));
    QCOMPARE(format::createTableSql(format::tables::kMeta),
             std::string("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT "
                         "ROWID;"));
    QCOMPARE(format::tableIndex(format::tables::kMeta), size_t(0));
    QCOMPARE(format::tableIndex(format::tables::kDiagnostics), format::kTables.size() - 5);
    QCOMPARE(format::tableIndex(format::tables::kProcessRanks), format::kTables.size() - 4);
    QCOMPARE(format::tableIndex(format::tables::kHostSamples), format::kTables.size() - 3);
    QCOMPARE(format::tableIndex(format::tables::kCollectiveCalls), format::kTables.size() - 2);
    QCOMPARE(format::tableIndex(format::tables::kCaptureIntervals), format::kTables.size() - 1);
}

STALLSCOPE_TEST_GUILESS_MAIN(TestSqliteDatabase)
#include "test_sqlite_database.moc"
