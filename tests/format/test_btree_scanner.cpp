// format::BtreeScanner: a table read from its pages gives exactly the rows and values SQLite
// gives, over every page size and every kind of stored value, and every file it does not read
// the way SQLite would is declined (with its reason) rather than read differently.
#include "format/btree_scanner.h"
#include "format/sqlite_database.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/test_suite.h"

#include <QTest>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

using namespace stallscope;
using format::BtreeScanner;
using format::Database;
using format::Statement;

namespace {

struct ScannedRow {
    int64_t rowId = 0;
    std::vector<Statement::TypedInteger> values;
};

bool sameValue(const Statement::TypedInteger& a, const Statement::TypedInteger& b) {
    return a.type == b.type && a.value == b.value;
}

// Every row of `table`, its `columns`, from the pages; false (with whyNot) when declined.
bool scanTable(const Database& db, const char* table, const std::vector<std::string>& columns,
               std::vector<ScannedRow>* rows, std::string* whyNot) {
    format::TableLayout layout;
    BtreeScanner scanner;
    if (!BtreeScanner::layoutOf(db, table, columns, &layout, whyNot) || !scanner.open(db, whyNot))
        return false;
    return scanner.scan(
        layout,
        [&](const BtreeScanner::PageRows& page) {
            for (size_t i = 0; i < page.size(); ++i)
                rows->push_back({page.rowIds[i],
                                 {page.values.begin() + long(i * page.columns),
                                  page.values.begin() + long((i + 1) * page.columns)}});
        },
        whyNot);
}

// The same through SQLite.
std::vector<ScannedRow> selectTable(const Database& db, const char* table,
                                    const std::vector<std::string>& columns) {
    std::string sql = "SELECT rowid";
    for (const std::string& column : columns)
        sql += ", " + column;
    Statement select = db.prepare(sql + " FROM " + table);
    std::vector<ScannedRow> rows;
    while (select.step()) {
        ScannedRow row{select.integer(0), {}};
        for (size_t c = 0; c < columns.size(); ++c)
            row.values.push_back(select.typedInteger(int(c + 1)));
        rows.push_back(row);
    }
    return rows;
}

int64_t pageCount(const Database& db) {
    Statement count = db.prepare("PRAGMA page_count");
    return count.step() ? count.integer(0) : 0;
}

// Overwrites `size` bytes (big-endian) at `offset` of `file` with `value`.
void patchBigEndian(const std::string& file, int64_t offset, uint32_t value, int size = 4) {
    std::fstream out(file, std::ios::in | std::ios::out | std::ios::binary);
    out.seekp(offset);
    for (int i = size - 1; i >= 0; --i)
        out.put(char(value >> (8 * i)));
}

// A new database at `path` made by `statements`; false (having failed the test) when one fails.
bool makeDatabase(const std::string& path, std::initializer_list<const char*> statements) {
    std::remove(path.c_str());
    Database db;
    std::string error;
    if (!db.open(path, Database::Mode::Create, &error)) {
        QTest::qFail(error.c_str(), __FILE__, __LINE__);
        return false;
    }
    for (const char* sql : statements)
        if (!db.exec(sql, &error)) {
            QTest::qFail((std::string(sql) + ": " + error).c_str(), __FILE__, __LINE__);
            return false;
        }
    return true;
}

uint32_t readBigEndian32(const std::string& file, int64_t offset) {
    std::ifstream in(file, std::ios::binary);
    in.seekg(offset);
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i)
        value = (value << 8) | uint8_t(in.get());
    return value;
}

} // namespace

class TestBtreeScanner : public QObject {
    Q_OBJECT
private slots:
    void readsWhatSqliteReads_data();
    void readsWhatSqliteReads();
    void recordsUpToTheLocalPayloadLimit();
    void declinesAWriteAheadLog();
    void declinesRecordsWithoutEveryColumn();
    void declinesATableWithoutRowIds();
    void declinesATreeThatLoopsOrLeavesTheFile();

private:
    // A file with table t(id, a, b, c) of `rows` rows over multi-level b-trees.
    std::string writeTable(const char* name, int pageSize, int rows);
    testing::ScratchDir m_dir;
};

std::string TestBtreeScanner::writeTable(const char* name, int pageSize, int rows) {
    const std::string path = m_dir.file(name);
    Database db;
    if (!db.open(path, Database::Mode::Create, nullptr))
        return {};
    db.exec("PRAGMA page_size = " + std::to_string(pageSize));
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, c INTEGER)");
    db.exec("BEGIN");
    // Every serial type: NULL, integers of 1 to 8 bytes either sign, 0 and 1 (types 8 and 9), a
    // real, text, a blob; and row ids with gaps and past 2^32.
    Statement insert = db.prepare("INSERT INTO t (id, a, b, c) VALUES (?, ?, ?, ?)", true);
    for (int i = 0; i < rows; ++i) {
        const int64_t id = i < rows - 3 ? 1 + 3 * int64_t(i) : (int64_t(1) << 33) + i;
        const int64_t magnitude = int64_t(1) << ((i * 7) % 63);
        insert.bind(1, id);
        insert.bind(2, i % 2 ? magnitude : -magnitude);
        if (i % 5 == 0)
            insert.bindNull(3);
        else
            insert.bind(3, int64_t(i % 3 == 0 ? 1 : 0));
        insert.bind(4, int64_t(i) * 1000003);
        insert.execute();
    }
    db.exec("UPDATE t SET c = 1.5 WHERE id % 7 = 1");
    db.exec("UPDATE t SET a = 'text' WHERE id % 11 = 1");
    db.exec("UPDATE t SET b = x'00ff' WHERE id % 13 = 1");
    db.exec("COMMIT");
    return path;
}

void TestBtreeScanner::readsWhatSqliteReads_data() {
    QTest::addColumn<int>("pageSize");
    QTest::addColumn<int>("rows");
    QTest::newRow("512-byte pages, four levels") << 512 << 20000;
    QTest::newRow("4 KiB pages") << 4096 << 20000;
    QTest::newRow("64 KiB pages") << 65536 << 20000;
    QTest::newRow("one row") << 4096 << 1;
}

void TestBtreeScanner::readsWhatSqliteReads() {
    QFETCH(int, pageSize);
    QFETCH(int, rows);
    const std::string path = writeTable(
        ("table" + std::to_string(pageSize) + "_" + std::to_string(rows)).c_str(), pageSize, rows);
    Database db;
    QVERIFY(db.open(path, Database::Mode::ReadOnly, nullptr));
    if (rows > 1)
        QVERIFY(pageCount(db) > 3);
    // Out of declaration order, the row id among them.
    const std::vector<std::string> columns = {"c", "id", "a", "b"};
    std::vector<ScannedRow> scanned;
    std::string whyNot;
    QVERIFY2(scanTable(db, "t", columns, &scanned, &whyNot), whyNot.c_str());
    const std::vector<ScannedRow> selected = selectTable(db, "t", columns);
    QCOMPARE(scanned.size(), size_t(rows));
    QCOMPARE(scanned.size(), selected.size());
    for (size_t r = 0; r < scanned.size(); ++r) {
        QCOMPARE(scanned[r].rowId, selected[r].rowId);
        for (size_t c = 0; c < columns.size(); ++c)
            QVERIFY2(sameValue(scanned[r].values[c], selected[r].values[c]),
                     qPrintable(QStringLiteral("row %1 column %2: type %3 value %4, SQLite %5 %6")
                                    .arg(r)
                                    .arg(QString::fromStdString(columns[c]))
                                    .arg(int(scanned[r].values[c].type))
                                    .arg(scanned[r].values[c].value)
                                    .arg(int(selected[r].values[c].type))
                                    .arg(selected[r].values[c].value)));
    }
    // The first and last rows of the scan: the smallest id, and the largest, past 2^32.
    QCOMPARE(scanned.front().rowId, rows > 3 ? int64_t(1) : int64_t(1) << 33);
    QCOMPARE(scanned.back().rowId, (int64_t(1) << 33) + rows - 1);
}

void TestBtreeScanner::recordsUpToTheLocalPayloadLimit() {
    // 1 KiB pages: a leaf keeps a record of up to 1024 - 35 = 989 bytes; a larger one spills onto
    // an overflow page. The record of (NULL, 5, blob of n bytes) is a 5-byte header (its size,
    // types 0, 1 and 12 + 2n in two bytes), 1 byte of integer and the n bytes: 6 + n.
    const std::string path = m_dir.file("payload.db");
    const char* kPages = "PRAGMA page_size = 1024";
    const char* kTable = "CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, s BLOB)";
    QVERIFY(makeDatabase(path, {kPages, kTable, "INSERT INTO t (a, s) VALUES (5, zeroblob(983))"}));
    Database db;
    QVERIFY(db.open(path, Database::Mode::ReadOnly, nullptr));
    std::vector<ScannedRow> scanned;
    std::string whyNot;
    QVERIFY2(scanTable(db, "t", {"id", "a"}, &scanned, &whyNot), whyNot.c_str());
    QCOMPARE(scanned.size(), size_t(1));
    QCOMPARE(scanned[0].values[1].value, int64_t(5));
    db.close();

    QVERIFY(makeDatabase(path, {kPages, kTable, "INSERT INTO t (a, s) VALUES (5, zeroblob(984))"}));
    QVERIFY(db.open(path, Database::Mode::ReadOnly, nullptr));
    scanned.clear();
    QVERIFY(!scanTable(db, "t", {"id", "a"}, &scanned, &whyNot));
    QCOMPARE(whyNot, std::string("a record on overflow pages"));
}

void TestBtreeScanner::declinesAWriteAheadLog() {
    const std::string path = m_dir.file("wal.db");
    QVERIFY(makeDatabase(path, {"PRAGMA journal_mode = WAL",
                                "CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER)",
                                "INSERT INTO t (a) VALUES (1)"}));
    Database db;
    std::string error;
    QVERIFY2(db.open(path, Database::Mode::ReadOnly, &error), error.c_str());
    BtreeScanner scanner;
    std::string whyNot;
    QVERIFY(!scanner.open(db, &whyNot));
    QCOMPARE(whyNot, std::string("not in rollback-journal mode"));
}

void TestBtreeScanner::declinesRecordsWithoutEveryColumn() {
    // Rows from before ALTER TABLE ADD COLUMN have no value for it: SQLite gives the default.
    const std::string path = m_dir.file("altered.db");
    QVERIFY(makeDatabase(path, {"CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER)",
                                "INSERT INTO t (a) VALUES (1)",
                                "ALTER TABLE t ADD COLUMN b INTEGER DEFAULT 7"}));
    Database db;
    QVERIFY(db.open(path, Database::Mode::ReadOnly, nullptr));
    std::vector<ScannedRow> scanned;
    std::string whyNot;
    QVERIFY2(scanTable(db, "t", {"id", "a"}, &scanned, &whyNot), whyNot.c_str());
    QVERIFY(!scanTable(db, "t", {"id", "b"}, &scanned, &whyNot));
    QCOMPARE(whyNot, std::string("a record without every column"));
}

void TestBtreeScanner::declinesATableWithoutRowIds() {
    const std::string path = m_dir.file("without_rowid.db");
    QVERIFY(makeDatabase(path, {"CREATE TABLE w (id INTEGER PRIMARY KEY, a INTEGER) WITHOUT ROWID",
                                "INSERT INTO w VALUES (1, 2)"}));
    Database db;
    QVERIFY(db.open(path, Database::Mode::ReadOnly, nullptr));
    std::vector<ScannedRow> scanned;
    std::string whyNot;
    QVERIFY(!scanTable(db, "w", {"id", "a"}, &scanned, &whyNot));
    QVERIFY2(whyNot.find("is not a table b-tree page") != std::string::npos, whyNot.c_str());
}

void TestBtreeScanner::declinesATreeThatLoopsOrLeavesTheFile() {
    const std::string path = writeTable("looped.db", 4096, 5000);
    uint32_t root = 0;
    {
        Database db;
        QVERIFY(db.open(path, Database::Mode::ReadOnly, nullptr));
        format::TableLayout layout;
        QVERIFY(BtreeScanner::layoutOf(db, "t", {"id"}, &layout, nullptr));
        root = layout.rootPage;
    }
    // The root is an interior page (5000 rows do not fit one page): its right-most child pointer
    // is at offset 8 of its header.
    const int64_t rightMost = int64_t(root - 1) * 4096 + 8;
    const uint32_t lastChild = readBigEndian32(path, rightMost);
    auto declined = [&](const std::string& reason) {
        Database db;
        QVERIFY(db.open(path, Database::Mode::ReadOnly, nullptr));
        std::vector<ScannedRow> scanned;
        std::string whyNot;
        QVERIFY(!scanTable(db, "t", {"id", "a"}, &scanned, &whyNot));
        QVERIFY2(whyNot.rfind(reason, 0) == 0, whyNot.c_str());
    };
    // A child with no cells: SQLite's cursor calls the tree corrupt.
    patchBigEndian(path, int64_t(lastChild - 1) * 4096 + 3, 0, 2);
    declined("page " + std::to_string(lastChild) + " has no cells");
    for (const auto& [child, reason] : std::vector<std::pair<uint32_t, std::string>>{
             {root, "page " + std::to_string(root) + " reached twice"},
             {1, "page 1 in a table's b-tree"},
             {1000000, "page 1000000 past the file's"}}) {
        patchBigEndian(path, rightMost, child);
        declined(reason);
    }
}

STALLSCOPE_TEST_GUILESS_MAIN(TestBtreeScanner)
#include "test_btree_scanner.moc"
