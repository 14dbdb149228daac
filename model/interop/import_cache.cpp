#include "model/interop/import_cache.h"

#include "format/sqlite_database.h"
#include "model/session/user_cache.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <system_error>

namespace stallscope::model {

namespace fs = std::filesystem;

namespace {

constexpr const char* kSessionSuffix = ".stallscope";
constexpr const char* kMarkSuffix = ".cache-entry";
// What a mark holds: a file of the user's cannot be one by accident.
constexpr std::string_view kMarkText = "Stallscope import cache entry: removed with its session\n";

struct CachedSession {
    fs::path path;
    int64_t bytes = 0; // with its sidecars
    fs::file_time_type lastUsed;
};

std::vector<CachedSession> cachedSessions(const std::string& dir) {
    std::vector<CachedSession> sessions;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (!entry.is_regular_file(ec) || entry.path().extension() != kSessionSuffix ||
            !isCacheEntry(entry.path().string()))
            continue;
        CachedSession session{entry.path(), static_cast<int64_t>(entry.file_size(ec)),
                              entry.last_write_time(ec)};
        for (const char* suffix : format::kSqliteSideFileSuffixes) {
            std::error_code missing;
            const auto size = fs::file_size(entry.path().string() + suffix, missing);
            if (!missing)
                session.bytes += static_cast<int64_t>(size);
        }
        sessions.push_back(std::move(session));
    }
    return sessions;
}

// Removes the session, its sidecars and its mark; false (with the error) if the session stays.
bool removeSession(const CachedSession& session, std::error_code& ec) {
    for (const char* suffix : format::kSqliteSideFileSuffixes) {
        std::error_code ignored;
        fs::remove(session.path.string() + suffix, ignored);
    }
    fs::remove(session.path, ec);
    if (ec)
        return false;
    std::error_code ignored;
    fs::remove(session.path.string() + kMarkSuffix, ignored);
    return true;
}

// This process's stand-in for a cache folder that cannot be written, removed at exit.
std::string g_scratchDir;
void removeScratchDir() {
    std::error_code ec;
    fs::remove_all(g_scratchDir, ec);
}

bool writable(const std::string& dir) {
    return access(dir.c_str(), W_OK | X_OK) == 0;
}

} // namespace

std::string importCacheDir() {
    return userCacheFolder("STALLSCOPE_IMPORT_CACHE", "imports");
}

std::string writableImportCacheDir(std::string* why) {
    const std::string dir = importCacheDir();
    if (writable(dir))
        return dir;
    static std::mutex mutex;
    const std::lock_guard lock(mutex);
    if (g_scratchDir.empty()) {
        std::error_code ec;
        std::string pattern = (fs::temp_directory_path(ec) / "stallscope-cache-XXXXXX").string();
        if (ec || !mkdtemp(pattern.data())) {
            *why = "the import cache " + dir +
                   " cannot be written, nor a temporary folder made (set STALLSCOPE_IMPORT_CACHE "
                   "to a folder that can be)";
            return {};
        }
        g_scratchDir = pattern;
        std::atexit(removeScratchDir);
    }
    return g_scratchDir;
}

std::string cacheEntryPath(const std::string& dir, const std::string& stem,
                           const std::string& identity, const std::vector<std::string>& files) {
    std::string key = identity;
    for (const std::string& file : files)
        key += "|" + fileContentKey(file);
    char hash[32];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fingerprint(key)));
    return (fs::path(dir) / (stem.substr(0, 120) + "-" + hash + kSessionSuffix)).string();
}

bool markCacheEntry(const std::string& entryPath) {
    std::ofstream mark(entryPath + kMarkSuffix, std::ios::binary | std::ios::trunc);
    mark << kMarkText;
    mark.close();
    return !mark.fail();
}

bool isCacheEntry(const std::string& path) {
    std::error_code ec;
    const std::string mark = path + kMarkSuffix;
    if (!fs::is_regular_file(fs::symlink_status(mark, ec)) ||
        fs::file_size(mark, ec) != kMarkText.size())
        return false;
    std::ifstream in(mark, std::ios::binary);
    std::string text(kMarkText.size(), '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    return text == kMarkText;
}

void removeCacheEntry(const std::string& path) {
    if (!isCacheEntry(path))
        return;         // never what the cache did not mark
    std::error_code ec; // the mark goes only with its session (or one that never came)
    removeSession(CachedSession{path, 0, {}}, ec);
}

std::string foreignFileProblem(const std::string& entryPath) {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(entryPath, ec)) || isCacheEntry(entryPath))
        return {};
    return entryPath + ": a file the import cache did not write has its name; move it away";
}

void touchCachedSession(const std::string& sessionPath) {
    std::error_code ec;
    fs::last_write_time(sessionPath, fs::file_time_type::clock::now(), ec);
}

ImportCacheTrim trimImportCache(const std::string& dir, const ImportCacheLimits& limits,
                                const std::string& keep) {
    std::vector<CachedSession> sessions = cachedSessions(dir);
    std::sort(sessions.begin(), sessions.end(), [](const CachedSession& a, const CachedSession& b) {
        return a.lastUsed < b.lastUsed;
    });
    int64_t bytes = 0;
    for (const CachedSession& session : sessions)
        bytes += session.bytes;
    int files = static_cast<int>(sessions.size());
    ImportCacheTrim trim;
    std::error_code ec;
    const fs::path kept = keep.empty() ? fs::path() : fs::absolute(keep, ec);
    for (const CachedSession& session : sessions) { // oldest first
        if (bytes <= limits.maxBytes && files <= limits.maxFiles)
            break;
        if (!kept.empty() && fs::absolute(session.path, ec) == kept)
            continue;
        if (!removeSession(session, ec))
            continue; // in use elsewhere or not ours to remove: the next one may go
        bytes -= session.bytes;
        --files;
        ++trim.removedFiles;
        trim.removedBytes += session.bytes;
    }
    return trim;
}

bool clearImportCache(const std::string& dir, ImportCacheTrim* removed, std::string* error) {
    *removed = {};
    for (const CachedSession& session : cachedSessions(dir)) {
        std::error_code ec;
        if (!removeSession(session, ec)) {
            *error = session.path.string() + ": cannot remove: " + ec.message();
            return false;
        }
        ++removed->removedFiles;
        removed->removedBytes += session.bytes;
    }
    // Marks whose session is gone (a conversion killed before its commit) are the cache's too.
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string path = entry.path().string();
        const std::string marked = path.size() > std::string_view(kMarkSuffix).size()
                                       ? path.substr(0, path.size() - std::strlen(kMarkSuffix))
                                       : std::string();
        std::error_code missing;
        if (entry.path().extension() == kMarkSuffix && !fs::exists(marked, missing) &&
            isCacheEntry(marked))
            fs::remove(entry.path(), missing);
    }
    return true;
}

} // namespace stallscope::model
