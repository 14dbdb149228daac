// How SessionLoader loads (session_loader.h): its progress, its cancellation, and how it reads the
// event tables (event_table_reader.h).
#pragma once

#include <atomic>
#include <functional>

namespace stallscope::model {

struct LoadOptions {
    // Called from the loading threads, one call at a time, with a fraction in [0, 1] that never
    // goes down.
    std::function<void(double)> progress;
    // Polled while loading; set it to stop early (the result is then cancelled, no session).
    const std::atomic<bool>* cancel = nullptr;
    // Reads the event tables from their pages where it can (format/btree_scanner.h), several
    // times faster; false: through SQLite only (the tests compare the two).
    bool readPages = true;
    // Reads the event columns from the column cache when it holds this file's (column_cache.h),
    // and keys the session so that they can be cached after (writeCachedColumns).
    bool useColumnCache = false;
};

} // namespace stallscope::model
