// The import cache's bounds: least recently used sessions go beyond the cap on files or bytes,
// never the one just converted, never a file that is not a cached session; clearing removes
// every session with its SQLite sidecars.
#include "model/interop/import_cache.h"

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using namespace stallscope::model;

class ImportCacheTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    // A cached session of `bytes`, last used `ageSeconds` ago.
    std::string cached(const std::string& name, int64_t bytes, int ageSeconds) {
        const std::string path = (fs::path(m_dir.path().toStdString()) / name).string();
        std::ofstream(path) << std::string(static_cast<size_t>(bytes), 'x');
        fs::last_write_time(path,
                            fs::file_time_type::clock::now() - std::chrono::seconds(ageSeconds));
        return path;
    }
    std::string dir() const { return m_dir.path().toStdString(); }

private slots:
    void init() {
        QVERIFY(m_dir.isValid());
        for (const auto& entry : fs::directory_iterator(dir()))
            fs::remove(entry.path());
    }

    void atTheCapNothingGoes() {
        cached("a.stallscope", 10, 30);
        cached("b.stallscope", 10, 20);
        cached("c.stallscope", 10, 10);
        const ImportCacheTrim trim = trimImportCache(dir(), {30, 3});
        QCOMPARE(trim.removedFiles, 0);
        QCOMPARE(trim.removedBytes, int64_t(0));
    }

    void beyondTheFileCapTheOldestGo() {
        const std::string oldest = cached("a.stallscope", 10, 40);
        const std::string older = cached("b.stallscope", 10, 30);
        const std::string newer = cached("c.stallscope", 10, 20);
        const std::string newest = cached("d.stallscope", 10, 10);
        std::ofstream(oldest + "-wal") << "wal";
        const std::string notOurs = cached("notes.txt", 100, 50);
        const ImportCacheTrim trim = trimImportCache(dir(), {1000, 2});
        QCOMPARE(trim.removedFiles, 2);
        QCOMPARE(trim.removedBytes, int64_t(23)); // with the sidecar
        QVERIFY(!fs::exists(oldest) && !fs::exists(oldest + "-wal") && !fs::exists(older));
        QVERIFY(fs::exists(newer) && fs::exists(newest) && fs::exists(notOurs));
    }

    // One byte over the cap: the oldest goes, unless it is the one being kept.
    void beyondTheByteCapTheOldestGoButNotTheKeptOne() {
        const std::string kept = cached("a.stallscope", 11, 30);
        const std::string middle = cached("b.stallscope", 10, 20);
        const std::string newest = cached("c.stallscope", 10, 10);
        const ImportCacheTrim trim = trimImportCache(dir(), {30, 50}, kept);
        QCOMPARE(trim.removedFiles, 1);
        QCOMPARE(trim.removedBytes, int64_t(10));
        QVERIFY(fs::exists(kept) && !fs::exists(middle) && fs::exists(newest));
    }

    void aUseMakesASessionRecent() {
        const std::string used = cached("a.stallscope", 10, 30);
        const std::string unused = cached("b.stallscope", 10, 20);
        touchCachedSession(used);
        QCOMPARE(trimImportCache(dir(), {1000, 1}).removedFiles, 1);
        QVERIFY(fs::exists(used) && !fs::exists(unused));
    }

    void clearRemovesEverySessionAndNothingElse() {
        const std::string first = cached("a.stallscope", 10, 30);
        const std::string last = cached("z.stallscope", 5, 20);
        std::ofstream(last + "-shm") << "shm";
        const std::string notOurs = cached("trace.json", 7, 10);
        ImportCacheTrim removed;
        std::string error;
        QVERIFY2(clearImportCache(dir(), &removed, &error), error.c_str());
        QCOMPARE(removed.removedFiles, 2);
        QCOMPARE(removed.removedBytes, int64_t(18));
        QVERIFY(!fs::exists(first) && !fs::exists(last) && !fs::exists(last + "-shm"));
        QVERIFY(fs::exists(notOurs));
    }
};

QTEST_GUILESS_MAIN(ImportCacheTest)
#include "test_import_cache.moc"
