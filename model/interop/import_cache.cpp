#include "model/interop/import_cache.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

namespace stallscope::model {

namespace fs = std::filesystem;

namespace {

constexpr const char* kSessionSuffix = ".stallscope";
constexpr const char* kSidecarSuffixes[] = {"-wal", "-shm", "-journal"};

struct CachedSession {
    fs::path path;
    int64_t bytes = 0; // with its sidecars
    fs::file_time_type lastUsed;
};

std::vector<CachedSession> cachedSessions(const std::string& dir) {
    std::vector<CachedSession> sessions;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (!entry.is_regular_file(ec) || entry.path().extension() != kSessionSuffix)
            continue;
        CachedSession session{entry.path(), static_cast<int64_t>(entry.file_size(ec)),
                              entry.last_write_time(ec)};
        for (const char* suffix : kSidecarSuffixes) {
            std::error_code missing;
            const auto size = fs::file_size(entry.path().string() + suffix, missing);
            if (!missing)
                session.bytes += static_cast<int64_t>(size);
        }
        sessions.push_back(std::move(session));
    }
    return sessions;
}

// Removes the session and its sidecars; false (with the error) if the session itself stays.
bool removeSession(const CachedSession& session, std::error_code& ec) {
    for (const char* suffix : kSidecarSuffixes) {
        std::error_code ignored;
        fs::remove(session.path.string() + suffix, ignored);
    }
    fs::remove(session.path, ec);
    return !ec;
}

} // namespace

std::string importCacheDir() {
    std::error_code ec;
    fs::path dir;
    if (const char* env = std::getenv("STALLSCOPE_IMPORT_CACHE"); env && *env)
        dir = env;
    else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        dir = fs::path(xdg) / "stallscope" / "imports";
    else if (const char* home = std::getenv("HOME"); home && *home)
        dir = fs::path(home) / ".cache" / "stallscope" / "imports";
    else
        dir = fs::temp_directory_path(ec) / "stallscope-imports";
    fs::create_directories(dir, ec);
    return dir.string();
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
    return true;
}

} // namespace stallscope::model
