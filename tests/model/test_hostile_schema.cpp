// Sessions are opened read-only and only when their schema is exactly Stallscope's (issue 13):
// triggers, views, generated columns, unknown tables, columns and indexes are refused with one
// line naming the file and what is foreign, before anything in them can run, and the file is
// left byte-identical. A read-only session in a read-only folder still opens.
#include "format/session_schema_check.h"
#include "format/sqlite_database.h"
#include "model/session/session_database.h"
#include "model/session/session_loader.h"
#include "tests/support/load_error.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/small_session.h"
#include "tests/support/sqlite_edit.h"
#include "tests/support/test_suite.h"

#include <QCryptographicHash>
#include <QFile>
#include <QTest>

#include <sqlite3.h>

#include <sys/stat.h>

using namespace stallscope;

namespace {

QByteArray fileHash(const std::string& path) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256);
}

// Rows of `table`, read with plain SQLite (no Stallscope code in the way).
int64_t rowCount(const std::string& path, const char* table) {
    sqlite3* db = nullptr;
    int64_t count = -1;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_stmt* statement = nullptr;
        const std::string sql = std::string("SELECT count(*) FROM ") + table;
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) == SQLITE_OK &&
            sqlite3_step(statement) == SQLITE_ROW)
            count = sqlite3_column_int64(statement, 0);
        sqlite3_finalize(statement);
    }
    sqlite3_close(db);
    return count;
}

} // namespace

class TestHostileSchema : public QObject {
    Q_OBJECT
private slots:
    void foreignSchemaIsRefusedUnread_data();
    void foreignSchemaIsRefusedUnread();
    void foreignMetaIsNotASession();
    void triggersNeverFire();
    void finalizeIndexesAreOptional();
    void readOnlyFileInReadOnlyFolderOpens();

private:
    testing::ScratchDir m_dir;
};

void TestHostileSchema::foreignSchemaIsRefusedUnread_data() {
    QTest::addColumn<QString>("sql");
    QTest::addColumn<QString>("expected");
    // Each would read or write something on open if it ran; each is named in the error.
    QTest::newRow("trigger") << "CREATE TRIGGER leak AFTER UPDATE ON frames BEGIN "
                                "INSERT INTO diagnostics(at_ns, severity, message) "
                                "VALUES (0, 'x', 'fired'); END"
                             << "a trigger 'leak' on 'frames'";
    QTest::newRow("view") << "CREATE VIEW everything AS SELECT * FROM frames"
                          << "a view 'everything'";
    QTest::newRow("generated column")
        << "ALTER TABLE kernels ADD COLUMN huge AS (zeroblob(100000000)) VIRTUAL"
        << "table 'kernels' has a generated column 'huge'";
    QTest::newRow("unknown table") << "CREATE TABLE notes(text TEXT)"
                                   << "an unknown table 'notes'";
    QTest::newRow("unknown column") << "ALTER TABLE frames ADD COLUMN extra INTEGER"
                                    << "table 'frames' has an unknown column 'extra'";
    QTest::newRow("unknown index") << "CREATE INDEX by_name ON kernels(name_id)"
                                   << "an unknown index 'by_name' on 'kernels'";
    QTest::newRow("changed column") << "DROP TABLE dropped; CREATE TABLE dropped (id INTEGER "
                                       "PRIMARY KEY, process_id INTEGER, at_ns INTEGER NOT NULL, "
                                       "source TEXT NOT NULL, count TEXT NOT NULL)"
                                    << "table 'dropped' is defined differently";
    QTest::newRow("escape in a name") << "CREATE TABLE \"x\x1b[2Jy\"(a)"
                                      << "an unknown table 'x\\x1b[2Jy'";
}

void TestHostileSchema::foreignSchemaIsRefusedUnread() {
    QFETCH(QString, sql);
    QFETCH(QString, expected);
    const std::string file = m_dir.file(QTest::currentDataTag());
    QVERIFY(testing::writeSmallSession(file));
    testing::execSql(file, sql.toUtf8().constData());
    const QByteArray before = fileHash(file);

    testing::expectLoadError(file, QStringLiteral("foreign schema: ") + expected);
    // Every other reader refuses it too, with the same words.
    model::SessionDatabase database;
    std::string error;
    QVERIFY(!database.open(file, &error));
    QVERIFY2(QString::fromStdString(error).contains(expected), error.c_str());
    QCOMPARE(fileHash(file), before);
}

void TestHostileSchema::foreignMetaIsNotASession() {
    // Another tool's database with a table named meta: its definition is checked before a read.
    const std::string other = m_dir.file("other-meta.db");
    testing::execSql(other, "CREATE TABLE meta(key TEXT, value TEXT)");
    testing::expectLoadError(
        other, QStringLiteral("not a Stallscope session (table 'meta' is defined differently)"));
    // Defined as ours, it is read: its format name says whose it is.
    const std::string named = m_dir.file("named-meta.db");
    testing::execSql(named, "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) "
                            "WITHOUT ROWID; INSERT INTO meta VALUES ('format_name', 'other')");
    testing::expectLoadError(
        named, QStringLiteral("not a Stallscope session (meta.format_name is 'other')"));
}

void TestHostileSchema::triggersNeverFire() {
    // Even a connection that skips the schema check (any format::Database) runs no trigger.
    const std::string file = m_dir.file("trigger.stallscope");
    QVERIFY(testing::writeSmallSession(file));
    testing::execSql(file, "CREATE TRIGGER leak AFTER INSERT ON strings BEGIN "
                           "INSERT INTO diagnostics(at_ns, severity, message) "
                           "VALUES (0, 'x', 'fired'); END");
    const int64_t diagnostics = rowCount(file, "diagnostics");
    QVERIFY(diagnostics >= 0);
    format::Database db;
    std::string error;
    QVERIFY2(db.open(file, format::Database::Mode::ReadWrite, &error), error.c_str());
    QVERIFY(db.exec("INSERT INTO strings(text) VALUES ('x')", &error));
    QCOMPARE(rowCount(file, "diagnostics"), diagnostics);
    QVERIFY2(!db.exec("CREATE VIEW v AS SELECT 1; SELECT * FROM v", &error), "views run");
    db.close();
    // The trigger works where SQLite's defaults apply: the check above is not vacuous.
    testing::execSql(file, "INSERT INTO strings(text) VALUES ('y')");
    QCOMPARE(rowCount(file, "diagnostics"), diagnostics + 1);
}

void TestHostileSchema::finalizeIndexesAreOptional() {
    // A session whose recording was cut short has no finalize indexes: still ours.
    const std::string file = m_dir.file("no-indexes.stallscope");
    QVERIFY(testing::writeSmallSession(file));
    testing::execSql(file, "DROP INDEX syncs_by_stack; DROP INDEX stack_frames_by_frame");
    QVERIFY(model::SessionLoader::load(file).ok());
    format::Database db;
    std::string error;
    QVERIFY2(format::openSession(db, file, &error), error.c_str());
    QCOMPARE(format::checkSessionSchema(db), std::string());
}

void TestHostileSchema::readOnlyFileInReadOnlyFolderOpens() {
    testing::ScratchDir folder;
    const std::string file = folder.file("shared.stallscope");
    QVERIFY(testing::writeSmallSession(file));
    const QByteArray before = fileHash(file);
    const std::string dir = folder.path().toStdString();
    QCOMPARE(chmod(file.c_str(), 0444), 0);
    QCOMPARE(chmod(dir.c_str(), 0555), 0);
    const model::LoadResult result = model::SessionLoader::load(file);
    model::SessionDatabase database;
    std::string error;
    const bool databaseOpened = database.open(file, &error);
    QCOMPARE(chmod(dir.c_str(), 0755), 0); // before any check, so the folder can be removed
    QVERIFY2(result.ok(), result.error.c_str());
    QVERIFY2(databaseOpened, error.c_str());
    QCOMPARE(result.session->counts.kernels, int64_t(3));
    QCOMPARE(database.modules().size(), size_t(1));
    QCOMPARE(fileHash(file), before);
    QVERIFY(!QFile::exists(folder.filePath(QStringLiteral("shared.stallscope-journal"))));
}

STALLSCOPE_TEST_GUILESS_MAIN(TestHostileSchema)
#include "test_hostile_schema.moc"
