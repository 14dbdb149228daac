// The import cache: where KinetoImporter::load() keeps the sessions it converts from traces, so a
// trace opened again (unchanged) loads at once. It lives in $STALLSCOPE_IMPORT_CACHE, else
// $XDG_CACHE_HOME/stallscope/imports, else ~/.cache/stallscope/imports, else the temporary
// folder. It is bounded: after each conversion the least recently used sessions beyond
// kImportCacheLimits go (a reuse counts as a use). `stallscope --clear-cache` empties it. Only
// sessions the cache wrote and marked as its own (a `NAME.stallscope` with its mark
// `NAME.stallscope.cache-entry` beside it) are ever removed, with SQLite's -wal/-shm/-journal, so
// a folder of the user's recordings that the variable points at by mistake loses nothing. When
// the folder cannot be written, a private temporary folder of this process (removed at exit)
// stands in for it, so that a trace still opens.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stallscope::model {

struct ImportCacheLimits {
    int64_t maxBytes = int64_t(2) << 30; // 2 GiB
    int maxFiles = 50;
};
inline constexpr ImportCacheLimits kImportCacheLimits{};

// The cache folder (created if missing).
std::string importCacheDir();
// importCacheDir() when it can be written, else this process's temporary stand-in; empty, with
// *why, when neither can.
std::string writableImportCacheDir(std::string* why);

// The name of a cache entry for what `identity` describes (which files, which converter) and
// the content of `files`: their sizes, modification times and first and last 64 KiB, so that a
// file rewritten with the same size and time is not served stale.
std::string cacheEntryPath(const std::string& dir, const std::string& stem,
                           const std::string& identity, const std::vector<std::string>& files);
// Marks `entryPath` as the cache's own: written before the entry itself, so that no entry is
// ever unmarked. False when the mark cannot be written.
bool markCacheEntry(const std::string& entryPath);
// Whether `path` is a session the cache wrote (its mark is beside it).
bool isCacheEntry(const std::string& path);
// Removes a cache entry with its SQLite side files and its mark; nothing when `path` is not marked
// as the cache's.
void removeCacheEntry(const std::string& path);
// Empty, or the problem when a file the cache did not write sits where an entry would go (it is
// then neither used nor replaced).
std::string foreignFileProblem(const std::string& entryPath);

// Marks `sessionPath` as just used (its modification time), for least-recently-used eviction.
void touchCachedSession(const std::string& sessionPath);

struct ImportCacheTrim {
    int removedFiles = 0;
    int64_t removedBytes = 0;
};

// Removes the least recently used sessions of `dir` until what is left fits `limits`; `keep`
// (the session just converted) is never removed, even alone over the cap.
ImportCacheTrim trimImportCache(const std::string& dir, const ImportCacheLimits& limits,
                                const std::string& keep = {});

// Removes every cached session of `dir` (and marks left without their session). False, with `error`
// naming the file, if one cannot go.
bool clearImportCache(const std::string& dir, ImportCacheTrim* removed, std::string* error);

} // namespace stallscope::model
