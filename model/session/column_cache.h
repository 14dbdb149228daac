// The column cache: the event columns of a large session, kept after its first open in the user's
// cache folder ($STALLSCOPE_COLUMN_CACHE, else ~/.cache/stallscope/columns: never beside the
// session), so that opening it again reads them in one pass instead of decoding its tables. The
// descriptive tables are still read from the session each time; only the lanes' columns, and the
// figures counted from them, come from the cache.
//
// Never trusted: an entry is used only when its magic and layout version, the session file it
// names (fileContentKey: path, size, time, first and last 64 KiB), a hash of all its bytes (XXH3)
// and the columns themselves (equal lengths, sorted starts, durations, names, streams and lanes
// in range, counts that add up) all check; anything else is a miss and the session loads from its
// tables as always. A column's length is checked against what is left of the entry before it is
// allocated, so memory stays bounded by the entry's size. Entries are written to a temporary name
// and renamed; the least recently used beyond kColumnCacheLimits go. STALLSCOPE_COLUMN_CACHE=off
// turns the cache off.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace stallscope::model {

class Session;

// Sessions with fewer events load from their tables in about a second: not cached.
inline constexpr int64_t kMinCachedEvents = 2'000'000;

struct ColumnCacheLimits {
    int64_t maxBytes = int64_t(32) << 30; // 32 GiB
    int maxFiles = 8;
};
inline constexpr ColumnCacheLimits kColumnCacheLimits{};

// The cache folder (created when missing); empty when the cache is off.
std::string columnCacheFolder();
// The key of the session file at `path` as it is now (fileContentKey and the columns' layout).
std::string columnCacheKey(const std::string& path);

// Fills the lanes of `session` (its descriptions loaded, its lanes empty) from the entry for `key`
// in `folder`, with the counts and times the loader computes from them; true when an entry was
// there and every check passed (the entry then counts as just used). Every value is held to what
// the loader allows from the tables; `isStack` says which stack ids the session's stacks table
// has. False leaves the lanes' columns partly filled: the caller empties them before it reads the
// tables.
bool readCachedColumns(const std::string& folder, const std::string& key, Session& session,
                       const std::function<bool(int64_t)>& isStack);

// Writes the entry for `session` (session.columnCacheKey; nothing without one or under
// `minEvents` events), then trims the folder to `limits`. False, with *error, when it could not,
// or when `cancel` was set (polled between columns; the partial entry is removed).
bool writeCachedColumns(const std::string& folder, const Session& session, std::string* error,
                        int64_t minEvents = kMinCachedEvents,
                        const ColumnCacheLimits& limits = kColumnCacheLimits,
                        const std::atomic<bool>* cancel = nullptr);

struct ColumnCacheCleared {
    int files = 0;
    int64_t bytes = 0;
};
// Removes every entry of `folder` (stallscope --clear-cache); files it did not write stay.
ColumnCacheCleared clearColumnCache(const std::string& folder);

} // namespace stallscope::model
