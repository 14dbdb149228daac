// InsightEngine: runs every rule of docs/insights.md over a loaded session and returns the
// insights ordered by estimated savings, the per-site sync statistics and the session summary.
// Synchronous and thread-agnostic: call it on a worker thread with a SessionDatabase opened on
// that thread (analyzeFile opens its own; the views run it through model::JobTracker). Linear
// passes over the columns, no per-event objects.
#pragma once

#include "model/analysis/analysis_window.h"
#include "model/analysis/insight.h"
#include "model/analysis/insight_thresholds.h"
#include "model/session/session.h"
#include "model/session/session_database.h"

#include <atomic>
#include <optional>

namespace stallscope::model {

struct AnalysisOptions {
    InsightThresholds thresholds;
    // Polled between and inside rules; when set the report comes back with cancelled = true.
    const std::atomic<bool>* cancel = nullptr;
    std::optional<AnalysisWindow> window; // absent: defaultWindow(session)
};

class InsightEngine {
public:
    static InsightReport analyze(const Session& session, const SessionDatabase& database,
                                 const AnalysisOptions& options = {});
    // Opens its own connection to the session's file first (one per thread). Without the file
    // (moved, or an imported trace) the rules still run; the report's warning says sync sites
    // are unknown.
    static InsightReport analyzeFile(const Session& session, const AnalysisOptions& options = {});
};

} // namespace stallscope::model
