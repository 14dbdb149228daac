// The import cache's bounds: least recently used sessions go beyond the cap on files or bytes,
// never the one just converted, never a file that is not a cached session; clearing removes
// every session with its SQLite sidecars.
#include "model/interop/import_cache.h"
#include "tests/support/test_suite.h"

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

    // A cached session of `bytes`, last used `ageSeconds` ago: the cache's own (marked), or a
    // file of the user's that only looks like one.
    std::string cached(const std::string& name, int64_t bytes, int ageSeconds, bool marked = true) {
        const std::string path = (fs::path(m_dir.path().toStdString()) / name).string();
        if (marked && !markCacheEntry(path))
            return {};
        std::ofstream(path) << std::string(static_cast<size_t>(bytes), 'x');
        fs::last_write_time(path,
                            fs::file_time_type::clock::now() - std::chrono::seconds(ageSeconds));
        return path;
    }
    std::string users(const std::string& name, int64_t bytes, int ageSeconds) {
        return cached(name, bytes, ageSeconds, false);
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
        const std::string notOurs = users("notes.txt", 100, 50);
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

    // Issue 40: STALLSCOPE_IMPORT_CACHE pointed at a folder of recordings lost the oldest ones.
    void theUsersSessionsNeverGo() {
        const std::string mine = users("recording.stallscope", 100, 100);
        std::ofstream(mine + "-wal") << "wal";
        const std::string cachedOne = cached("a.stallscope", 10, 10);
        QCOMPARE(trimImportCache(dir(), {1, 0}).removedFiles, 1); // over both caps
        QVERIFY(fs::exists(mine) && fs::exists(mine + "-wal") && !fs::exists(cachedOne));
        ImportCacheTrim removed;
        std::string error;
        QVERIFY2(clearImportCache(dir(), &removed, &error), error.c_str());
        QCOMPARE(removed.removedFiles, 0);
        QVERIFY(fs::exists(mine) && fs::exists(mine + "-wal"));
        QVERIFY(!isCacheEntry(mine));
    }

    // A file of the user's where an entry would go is neither used nor removed.
    void aForeignFileAtAnEntrysNameStays() {
        const std::string mine = users("trace.json-0123456789abcdef.stallscope", 10, 10);
        QVERIFY(!foreignFileProblem(mine).empty());
        removeCacheEntry(mine);
        QVERIFY(fs::exists(mine));
        const std::string ours = cached("ours.stallscope", 10, 10);
        QCOMPARE(foreignFileProblem(ours), std::string());
        QCOMPARE(foreignFileProblem(ours + ".missing"), std::string());
        removeCacheEntry(ours);
        QVERIFY(!fs::exists(ours) && !isCacheEntry(ours));
    }

    // A file rewritten with the same size and modification time is another entry.
    void entriesAreKeyedOnContent() {
        const std::string trace = users("trace.json", 0, 0);
        const auto write = [&](char fill) {
            std::ofstream(trace, std::ios::trunc) << std::string(200000, fill);
            fs::last_write_time(trace, fs::file_time_type(std::chrono::seconds(1700000000)));
        };
        write('a');
        const std::string first = cacheEntryPath(dir(), "trace.json", "id", {trace});
        QCOMPARE(cacheEntryPath(dir(), "trace.json", "id", {trace}), first);
        write('b');
        QVERIFY(cacheEntryPath(dir(), "trace.json", "id", {trace}) != first);
        QVERIFY(cacheEntryPath(dir(), "trace.json", "other", {trace}) != first);
    }

    void clearRemovesEverySessionAndNothingElse() {
        const std::string first = cached("a.stallscope", 10, 30);
        const std::string last = cached("z.stallscope", 5, 20);
        std::ofstream(last + "-shm") << "shm";
        const std::string notOurs = users("trace.json", 7, 10);
        ImportCacheTrim removed;
        std::string error;
        QVERIFY2(clearImportCache(dir(), &removed, &error), error.c_str());
        QCOMPARE(removed.removedFiles, 2);
        QCOMPARE(removed.removedBytes, int64_t(18));
        QVERIFY(!fs::exists(first) && !fs::exists(last) && !fs::exists(last + "-shm"));
        QVERIFY(fs::exists(notOurs));
    }
};

STALLSCOPE_TEST_GUILESS_MAIN(ImportCacheTest)
#include "test_import_cache.moc"
