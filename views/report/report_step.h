// The report's zoomed timeline: one stalled step of the top finding with a simulated saving, as
// recorded (the sync selected, its "waited for" arrow drawn) and as the what-if replay shows it
// after the fix (the "after fix" ghosts of AfterFixPreview::replay, the ones the app draws when
// the finding's card is selected). A step is a profiler step or NVTX "step" range holding the
// sync; without one, the stretch from the site's previous sync on that thread to just after this
// one (one iteration of the loop that syncs).
#pragma once

#include "views/report/report_document.h"

#include <memory>
#include <optional>

namespace stallscope::model {
class Session;
struct Insight;
struct InsightReport;
} // namespace stallscope::model

namespace stallscope::views {

struct StalledStep {
    int insightIndex = -1; // into InsightReport::insights
    int64_t startNs = 0;   // the time span shown
    int64_t endNs = 0;
    bool isRecordedStep = false;         // a profiler/NVTX step, not the iteration around the sync
    std::vector<ReportPicture> pictures; // before, after
};

// Nothing when no finding has a simulated saving (or the report carries no run graph).
std::optional<StalledStep> stalledStep(const std::shared_ptr<const model::Session>& session,
                                       const model::InsightReport& report);

} // namespace stallscope::views
