// The column cache (model/session/column_cache.h): a session's columns written once and read back
// give the very session its tables give; any change to the session file, any damaged byte or cut
// of the entry, a session still recording, or the cache turned off reads the tables instead; the
// folder keeps its limits and never loses a file the cache did not write; nothing is written
// beside the session.
#include "model/session/column_cache.h"
#include "model/session/session.h"
#include "model/session/session_loader.h"
#include "model/testing/synthetic_session.h"
#include "tests/support/same_session.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/sqlite_edit.h"
#include "tests/support/test_suite.h"

#include <QTest>

#include <xxhash.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace stallscope;
namespace fs = std::filesystem;

namespace {

model::LoadResult loadCached(const std::string& path, bool useCache = true) {
    model::LoadOptions options;
    options.useColumnCache = useCache;
    return model::SessionLoader::load(path, options);
}

std::vector<fs::path> filesIn(const std::string& folder) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(folder))
        files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

std::string readAll(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeAll(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

} // namespace

class TestColumnCache : public QObject {
    Q_OBJECT
private:
    testing::ScratchDir m_dir;
    std::string m_cache;   // the cache folder
    std::string m_inputs;  // the sessions' folder
    std::string m_session; // a generated session with every kind of column

    // The session loaded from its tables and cached (every event count cached: minEvents 0).
    std::unique_ptr<model::Session> cacheFresh(const std::string& path) {
        model::LoadResult fresh = loadCached(path);
        if (!fresh.ok() || fresh.columnsFromCache || fresh.session->columnCacheKey.empty())
            return {};
        std::string error;
        if (!model::writeCachedColumns(m_cache, *fresh.session, &error, 0))
            return {};
        return std::move(fresh.session);
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_cache = m_dir.file("cache");
        m_inputs = m_dir.file("inputs");
        fs::create_directories(m_inputs);
        qputenv("STALLSCOPE_COLUMN_CACHE", m_cache.c_str());
        model::SyntheticOptions options;
        options.targetEvents = 15'000; // every kind of column, small: ~700 loads under sanitizers
        options.threadsPerProcess = 3;
        options.sampleHz = 10000; // host_samples rows
        options.hostWorkNs = 500'000;
        m_session = (fs::path(m_inputs) / "generated.stallscope").string();
        std::string error;
        QVERIFY2(model::writeSyntheticSession(m_session, options, nullptr, &error), error.c_str());
    }

    void init() {
        std::error_code ec;
        fs::remove_all(m_cache, ec);
        fs::create_directories(m_cache);
    }

    void readBackIsTheSessionItsTablesGive() {
        const auto fresh = cacheFresh(m_session);
        QVERIFY(fresh);
        QCOMPARE(filesIn(m_cache).size(), size_t(1));
        const model::LoadResult cached = loadCached(m_session);
        QVERIFY2(cached.ok(), cached.error.c_str());
        QVERIFY(cached.columnsFromCache);
        QVERIFY(cached.session->columnCacheKey.empty()); // nothing left to cache
        QVERIFY(testing::sameEvents(*fresh, *cached.session));
        QCOMPARE(cached.session->counts, fresh->counts);
        // Every kind of column was there to compare.
        const format::EventCounts& counts = fresh->counts;
        QVERIFY(counts.apiCalls > 0 && counts.syncs > 0 && counts.kernels > 0 &&
                counts.memcpys > 0 && counts.memsets > 0 && counts.ranges > 0);
        QVERIFY(fresh->hostSamples > 0);
        // Without the cache asked for, the tables are read.
        const model::LoadResult tables = loadCached(m_session, false);
        QVERIFY(!tables.columnsFromCache && tables.session->columnCacheKey.empty());
        // Nothing beside the session.
        QCOMPARE(filesIn(m_inputs), std::vector<fs::path>{fs::path(m_session)});
    }

    // A session file that changed (its time, or its bytes with the same size and time) is a miss.
    void changedSessionIsAMiss() {
        const std::string copy = (fs::path(m_inputs) / "changed.stallscope").string();
        fs::copy_file(m_session, copy, fs::copy_options::overwrite_existing);
        QVERIFY(cacheFresh(copy));
        QVERIFY(loadCached(copy).columnsFromCache);
        fs::last_write_time(copy, fs::last_write_time(copy) + std::chrono::seconds(1));
        const model::LoadResult touched = loadCached(copy);
        QVERIFY(touched.ok() && !touched.columnsFromCache &&
                !touched.session->columnCacheKey.empty());
        fs::remove(copy);
    }

    // Every damaged byte of the entry (its header, its key, the counts and values of its columns),
    // and every cut of it, is a miss: the session loads from its tables, the same.
    void damagedEntryIsAMiss() {
        const auto fresh = cacheFresh(m_session);
        QVERIFY(fresh);
        const fs::path entry = filesIn(m_cache).front();
        const std::string bytes = readAll(entry);
        QVERIFY(bytes.size() > 50'000);
        std::vector<size_t> offsets;
        uint32_t keyBytes = 0; // its length, at 20 in the header (column_cache.cpp)
        std::memcpy(&keyBytes, bytes.data() + 20, sizeof keyBytes);
        const size_t payloadAt = 56 + keyBytes;
        for (size_t at = 0; at < payloadAt; at += at < 56 ? 1 : 7) // the header, then the key
            offsets.push_back(at);
        for (size_t at = payloadAt; at < payloadAt + 160; ++at) // figures, the first counts
            offsets.push_back(at);
        for (size_t at = payloadAt + 160; at < bytes.size(); at += bytes.size() / 61)
            offsets.push_back(at);
        offsets.push_back(bytes.size() - 1);
        for (const size_t at : offsets) {
            std::string damaged = bytes;
            damaged[at] = char(damaged[at] ^ 0x80);
            writeAll(entry, damaged);
            const model::LoadResult loaded = loadCached(m_session);
            QVERIFY2(loaded.ok() && !loaded.columnsFromCache, std::to_string(at).c_str());
            QVERIFY2(testing::sameEvents(*fresh, *loaded.session), std::to_string(at).c_str());
        }
        for (const size_t cut :
             {size_t(0), size_t(39), size_t(40), size_t(200), bytes.size() / 2, bytes.size() - 1}) {
            writeAll(entry, bytes.substr(0, cut));
            const model::LoadResult loaded = loadCached(m_session);
            QVERIFY2(loaded.ok() && !loaded.columnsFromCache, std::to_string(cut).c_str());
        }
        writeAll(entry, bytes + "x"); // one byte too many
        QVERIFY(!loadCached(m_session).columnsFromCache);
        writeAll(entry, bytes); // and whole again: used
        QVERIFY(loadCached(m_session).columnsFromCache);
    }

    // Past the hash: an entry whose bytes were changed and whose hash was made to match (a file
    // of the user's own cache folder, crafted) is still checked column by column. Each change is
    // a miss, or a hit whose columns pass every check; never a crash (the ASan build runs this),
    // and never an allocation larger than the entry (a count is checked against what is left).
    void craftedEntryIsCheckedPastItsHash() {
        const auto fresh = cacheFresh(m_session);
        QVERIFY(fresh);
        const fs::path entry = filesIn(m_cache).front();
        const std::string bytes = readAll(entry);
        // The header (column_cache.cpp): the key's length at 20, the first part's hash (of the
        // key and the part) at 32, the second part's offset in the payload at 40, its hash at 48.
        constexpr size_t kHeaderBytes = 56;
        uint32_t keyBytes = 0;
        uint64_t streamPart = 0;
        std::memcpy(&keyBytes, bytes.data() + 20, sizeof keyBytes);
        std::memcpy(&streamPart, bytes.data() + 40, sizeof streamPart);
        const size_t payloadAt = kHeaderBytes + keyBytes;
        const size_t streamAt = payloadAt + streamPart;
        QVERIFY(bytes.size() > streamAt + 1000 && streamPart > 1000);
        auto withHash = [&](std::string changed) {
            const uint64_t first =
                XXH3_64bits(changed.data() + kHeaderBytes, streamAt - kHeaderBytes);
            const uint64_t second =
                XXH3_64bits(changed.data() + streamAt, changed.size() - streamAt);
            std::memcpy(changed.data() + 32, &first, sizeof first);
            std::memcpy(changed.data() + 48, &second, sizeof second);
            return changed;
        };
        QCOMPARE(withHash(bytes), bytes); // the hash as the cache computes it
        int misses = 0;
        for (size_t at = payloadAt; at < bytes.size(); at += 1 + (bytes.size() - payloadAt) / 120) {
            for (const char change : {char(0x80), char(0xff)}) {
                std::string crafted = bytes;
                crafted[at] = char(crafted[at] ^ change);
                writeAll(entry, withHash(crafted));
                const model::LoadResult loaded = loadCached(m_session);
                QVERIFY2(loaded.ok(), std::to_string(at).c_str());
                misses += loaded.columnsFromCache ? 0 : 1;
            }
        }
        qInfo("%d of the crafted entries refused by the column checks", misses);
        QVERIFY(misses > 0); // the checks do refuse what they can tell
    }

    // Sessions under the threshold are not written; the threshold itself is (both sides of it).
    void smallSessionsAreNotCached() {
        const model::LoadResult fresh = loadCached(m_session);
        QVERIFY(fresh.ok());
        const int64_t events = fresh.session->counts.total();
        std::string error;
        QVERIFY(model::writeCachedColumns(m_cache, *fresh.session, &error, events + 1));
        QVERIFY(filesIn(m_cache).empty());
        QVERIFY(model::writeCachedColumns(m_cache, *fresh.session, &error, events));
        QCOMPARE(filesIn(m_cache).size(), size_t(1));
        // The window's writes: under kMinCachedEvents, nothing.
        fs::remove_all(m_cache);
        fs::create_directories(m_cache);
        QVERIFY(events < model::kMinCachedEvents);
        QVERIFY(model::writeCachedColumns(m_cache, *fresh.session, &error));
        QVERIFY(filesIn(m_cache).empty());
    }

    // A recording still being written changes under its key: it is never keyed, so never cached.
    void recordingIsNotCached() {
        const std::string copy = (fs::path(m_inputs) / "recording.stallscope").string();
        fs::copy_file(m_session, copy, fs::copy_options::overwrite_existing);
        testing::execSql(copy, "UPDATE meta SET value = 'recording' WHERE key = 'status'");
        const model::LoadResult loaded = loadCached(copy);
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        QCOMPARE(loaded.session->status, std::string("recording"));
        QVERIFY(loaded.session->columnCacheKey.empty());
        fs::remove(copy);
    }

    // A cancelled write (the window closed, another session opened) leaves nothing behind.
    void cancelledWriteLeavesNothing() {
        const model::LoadResult fresh = loadCached(m_session);
        QVERIFY(fresh.ok());
        const std::atomic<bool> cancel{true};
        std::string error;
        QVERIFY(!model::writeCachedColumns(m_cache, *fresh.session, &error, 0,
                                           model::kColumnCacheLimits, &cancel));
        QCOMPARE(error, std::string("cancelled"));
        QVERIFY(filesIn(m_cache).empty());
        const std::atomic<bool> goOn{false};
        QVERIFY(model::writeCachedColumns(m_cache, *fresh.session, &error, 0,
                                          model::kColumnCacheLimits, &goOn));
        QCOMPARE(filesIn(m_cache).size(), size_t(1));
    }

    void turnedOff() {
        qputenv("STALLSCOPE_COLUMN_CACHE", "off");
        QVERIFY(model::columnCacheFolder().empty());
        const model::LoadResult loaded = loadCached(m_session);
        qputenv("STALLSCOPE_COLUMN_CACHE", m_cache.c_str());
        QVERIFY(loaded.ok() && !loaded.columnsFromCache);
        std::string error;
        QVERIFY(model::writeCachedColumns({}, *loaded.session, &error, 0)); // nowhere: nothing
        QVERIFY(filesIn(m_cache).empty());
    }

    // The least recently used entries go beyond the limits (a read counts as a use); a file the
    // cache did not write stays, whatever its name.
    void folderKeepsItsLimits() {
        std::vector<std::string> copies;
        for (const char* name : {"a.stallscope", "b.stallscope", "c.stallscope"}) {
            copies.push_back((fs::path(m_inputs) / name).string());
            fs::copy_file(m_session, copies.back(), fs::copy_options::overwrite_existing);
        }
        const fs::path foreign = fs::path(m_cache) / "0000000000000000.columns";
        writeAll(foreign, "not an entry of the cache, named like one");
        const model::ColumnCacheLimits twoFiles{int64_t(1) << 40, 2};
        std::string error;
        for (const std::string& copy : copies) {
            const model::LoadResult fresh = loadCached(copy);
            QVERIFY(fresh.ok());
            QVERIFY(model::writeCachedColumns(m_cache, *fresh.session, &error, 0, twoFiles));
            if (copy == copies[1])
                QVERIFY(
                    loadCached(copies[0]).columnsFromCache); // a's entry used after b's was written
        }
        QCOMPARE(filesIn(m_cache).size(), size_t(3)); // two entries and the foreign file
        QVERIFY(fs::exists(foreign));
        QVERIFY(loadCached(copies[0]).columnsFromCache);  // used last before c came: kept
        QVERIFY(!loadCached(copies[1]).columnsFromCache); // the least recently used: gone
        QVERIFY(loadCached(copies[2]).columnsFromCache);
        for (const std::string& copy : copies)
            fs::remove(copy);
    }
};

STALLSCOPE_TEST_MAIN(TestColumnCache)
#include "test_column_cache.moc"
