// The import cache: where KinetoImporter::load() keeps the sessions it converts from traces, so a
// trace opened again (unchanged) loads at once. It lives in $STALLSCOPE_IMPORT_CACHE, else
// $XDG_CACHE_HOME/stallscope/imports, else ~/.cache/stallscope/imports, else the temporary
// folder. It is bounded: after each conversion the least recently used sessions beyond
// kImportCacheLimits go (a reuse counts as a use). `stallscope --clear-cache` empties it. Only
// files named `*.stallscope` (and SQLite's -wal/-shm/-journal beside them) are ever removed, so a
// folder the variable points at by mistake loses nothing else.
#pragma once

#include <cstdint>
#include <string>

namespace stallscope::model {

struct ImportCacheLimits {
    int64_t maxBytes = int64_t(2) << 30; // 2 GiB
    int maxFiles = 50;
};
inline constexpr ImportCacheLimits kImportCacheLimits{};

// The cache folder (created if missing).
std::string importCacheDir();

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

// Removes every cached session of `dir`. False, with `error` naming the file, if one cannot go.
bool clearImportCache(const std::string& dir, ImportCacheTrim* removed, std::string* error);

} // namespace stallscope::model
