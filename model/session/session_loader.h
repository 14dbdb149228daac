// SessionLoader: opens a session file, validates it and builds the per-lane columns.
// Qt-free and synchronous; the app runs it off the GUI thread through model::JobTracker.
#pragma once

#include "model/session/load_options.h"
#include "model/session/session.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>

namespace stallscope::model {

struct LoadResult {
    std::unique_ptr<Session> session; // null on error
    std::string error;                // one line naming the file and the problem
    bool cancelled = false;
    // How many event tables were read from their pages (format/btree_scanner.h) rather than
    // through SQLite.
    int tablesReadFromPages = 0;
    // The event columns came from the column cache (column_cache.h), not the tables.
    bool columnsFromCache = false;
    bool ok() const { return session != nullptr; }
};

class SessionLoader {
public:
    static LoadResult load(const std::string& path, const LoadOptions& options = {});
};

// The warning a loaded session opens with (Session::warning), from its status, its meta
// (incomplete_reason, import_warnings) and untimedEvents; "" when there is none.
std::string loadWarning(const Session& session);

} // namespace stallscope::model
