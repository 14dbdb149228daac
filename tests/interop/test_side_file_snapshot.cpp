// Sessions with pending side data (issue 40, item 3): a killed writer's WAL and a hot rollback
// journal are read from a made-whole copy in the import cache; nothing is ever created beside
// the input, also in a folder that cannot be written; the copy is the cache's own and reused.
#include "format/session_writer.h"
#include "format/sqlite_database.h"
#include "model/interop/import_cache.h"
#include "model/interop/side_file_snapshot.h"
#include "model/session/session.h"
#include "tests/support/killed_writer.h"
#include "tests/support/small_session.h"
#include "tests/support/test_suite.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>

using namespace stallscope;

namespace {

QStringList filesIn(const QString& dir) {
    return QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::System, QDir::Name);
}

} // namespace

class TestSideFileSnapshot : public QObject {
    Q_OBJECT
    QTemporaryDir m_cache;

private slots:
    void init() { qputenv("STALLSCOPE_IMPORT_CACHE", m_cache.path().toUtf8()); }
    void cleanup() { qunsetenv("STALLSCOPE_IMPORT_CACHE"); }

    void killedWriterIsReadFromACopy() {
        QTemporaryDir dir;
        const std::string file = dir.filePath("killed.stallscope").toStdString();
        QVERIFY(testing::writeKilledSession(file));
        QVERIFY(format::sqliteSideFiles(file).walBytes > 0);
        QVERIFY(model::hasPendingSideFiles(file));

        // In a folder nobody may write to (root may: then the listing still must not change).
        const QStringList before = filesIn(dir.path());
        QVERIFY(chmod(dir.path().toUtf8().constData(), 0555) == 0);
        const model::LoadResult result = model::loadSideFileSnapshot(file);
        chmod(dir.path().toUtf8().constData(), 0755);
        QVERIFY2(result.ok(), result.error.c_str());
        QCOMPARE(filesIn(dir.path()), before);
        QCOMPARE(result.session->counts.apiCalls, int64_t(1000)); // what was committed
        QCOMPARE(result.session->status, std::string("recording"));
        QVERIFY2(result.session->warning.find("write-ahead log") != std::string::npos,
                 result.session->warning.c_str());
        const std::string copy = result.session->path;
        QVERIFY(QString::fromStdString(copy).startsWith(m_cache.path()));
        QVERIFY(model::isCacheEntry(copy));
        QVERIFY(!format::sqliteSideFiles(copy).pending());

        // Unchanged input: the copy is reused; --clear-cache may remove it, as its own.
        const model::LoadResult again = model::loadSideFileSnapshot(file);
        QVERIFY2(again.ok(), again.error.c_str());
        QCOMPARE(again.session->path, copy);
        model::ImportCacheTrim removed;
        std::string error;
        QVERIFY2(model::clearImportCache(m_cache.path().toStdString(), &removed, &error),
                 error.c_str());
        QCOMPARE(removed.removedFiles, 1);
        QVERIFY(!QFile::exists(QString::fromStdString(copy)));
        QVERIFY(QFile::exists(QString::fromStdString(file)));
    }

    void hotJournalIsRolledBackInTheCopy() {
        QTemporaryDir dir;
        const std::string file = dir.filePath("hot.stallscope").toStdString();
        QVERIFY(testing::writeSmallSession(file));
        const int64_t kernels = [&] {
            const model::LoadResult loaded = model::SessionLoader::load(file);
            return loaded.ok() ? loaded.session->counts.kernels : -1;
        }();
        QVERIFY(kernels > 0);
        // A writer killed inside a transaction whose changed pages reached the file.
        QVERIFY(testing::killAfter([&] {
            auto* db = new format::Database; // open until the kill: never rolled back
            std::string error;
            return db->open(file, format::Database::Mode::ReadWrite, &error) &&
                   db->exec("PRAGMA journal_mode=DELETE; PRAGMA cache_size=1; BEGIN; "
                            "DELETE FROM kernels; DELETE FROM strings;",
                            &error);
        }));
        QVERIFY(format::sqliteSideFiles(file).hotJournalBytes > 0);

        const QStringList before = filesIn(dir.path());
        const model::LoadResult direct = model::SessionLoader::load(file);
        QVERIFY(!direct.ok());
        QVERIFY2(direct.error.find("has an unfinished write: its rollback journal") !=
                     std::string::npos,
                 direct.error.c_str());
        const model::LoadResult result = model::loadSideFileSnapshot(file);
        QVERIFY2(result.ok(), result.error.c_str());
        QCOMPARE(result.session->counts.kernels, kernels); // the deletion rolled back
        QCOMPARE(filesIn(dir.path()), before);
        QVERIFY(format::sqliteSideFiles(file).hotJournalBytes > 0); // the input's is untouched
    }

    // WAL mode with nothing pending (an empty -wal beside it): opened in place, immutable.
    void walModeWithoutPendingDataOpensInPlace() {
        QTemporaryDir dir;
        const std::string file = dir.filePath("wal.stallscope").toStdString();
        QVERIFY(testing::writeSmallSession(file));
        {
            format::Database db;
            std::string error;
            QVERIFY2(db.open(file, format::Database::Mode::ReadWrite, &error) &&
                         db.exec("PRAGMA journal_mode=WAL", &error),
                     error.c_str());
        }
        QVERIFY(format::sqliteSideFiles(file).walMode);
        QFile emptyWal(QString::fromStdString(file + "-wal"));
        QVERIFY(emptyWal.open(QIODevice::WriteOnly));
        emptyWal.close();
        QVERIFY(!model::hasPendingSideFiles(file));
        const QStringList before = filesIn(dir.path());
        const model::LoadResult result = model::SessionLoader::load(file);
        QVERIFY2(result.ok(), result.error.c_str());
        QCOMPARE(filesIn(dir.path()), before); // no -shm made
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(TestSideFileSnapshot)
#include "test_side_file_snapshot.moc"
