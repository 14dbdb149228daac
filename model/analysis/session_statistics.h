// The session summary of the insight report: wall time, the analysis window, GPU busy per device
// and host blocked time inside the window, top sync sites and top kernels. Computed from the
// analysis' shared passes (GpuActivity, SyncSites) plus one pass over the kernel columns.
#pragma once

#include "model/analysis/analysis_window.h"
#include "model/analysis/gpu_activity.h"
#include "model/analysis/insight.h"
#include "model/analysis/sync_sites.h"
#include "model/session/session.h"

namespace stallscope::model {

class SessionStatisticsBuilder {
public:
    static constexpr size_t kTopSites = 10;
    static constexpr size_t kTopKernels = 10;

    // Busy and blocked intervals are clipped to `window`; shares are over its duration.
    static SessionStatistics compute(const Session& session, const GpuActivity& gpu,
                                     const SyncSites& sites, const AnalysisWindow& window);
};

} // namespace stallscope::model
