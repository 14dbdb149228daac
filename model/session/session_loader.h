// SessionLoader: opens a session file, validates it and builds the per-lane columns.
// Qt-free and synchronous; the app runs it off the GUI thread through model::JobTracker.
#pragma once

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
    bool ok() const { return session != nullptr; }
};

struct LoadOptions {
    // Called from the loading threads, one call at a time, with a fraction in [0, 1] that never
    // goes down.
    std::function<void(double)> progress;
    // Polled while loading; set it to stop early (the result is then cancelled, no session).
    const std::atomic<bool>* cancel = nullptr;
};

class SessionLoader {
public:
    static LoadResult load(const std::string& path, const LoadOptions& options = {});
};

// The warning a loaded session opens with (Session::warning), from its status, its meta
// (incomplete_reason, import_warnings) and untimedEvents; "" when there is none.
std::string loadWarning(const Session& session);

} // namespace stallscope::model
