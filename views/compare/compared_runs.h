// ComparedRuns: two runs of a program (before and after a change) as the compare view shows them:
// each session with its analysis, the model::SessionComparison of the two, the moment each run's
// timeline lines up on, and each compared site's syncs in each run. compareRuns() makes it on a
// job's thread (the analysis and the site attribution take seconds on long runs).
#pragma once

#include "model/analysis/insight.h"
#include "model/compare/session_compare.h"
#include "model/session/session.h"

#include <QString>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace stallscope::views {

struct ComparedRun {
    std::shared_ptr<const model::Session> session;
    std::shared_ptr<const model::InsightReport> report; // over the session's active window
    QString file; // as the user named it (the session, or the trace it was converted from)
    // The moment the two timelines line up on: the first step of the analysis window when both
    // runs have steps (the comparison is per step), else the window's start.
    int64_t anchorNs = 0;
};

struct ComparedRuns {
    ComparedRun before, after;
    model::SessionComparison comparison;
    bool alignedOnSteps = false;
    // Per comparison.sites[i]: the site's syncs in each run; empty where the site is absent.
    std::vector<model::EventSpans> beforeEvents, afterEvents;
};

// Analyzes both sessions over their active windows (each through its own SessionDatabase, opened
// on the calling thread), compares them and finds every compared site's syncs. Null when
// cancelled. The runs' `report` and `anchorNs` are filled in here.
std::shared_ptr<const ComparedRuns> compareRuns(ComparedRun before, ComparedRun after,
                                                const std::atomic<bool>* cancel = nullptr);

} // namespace stallscope::views
