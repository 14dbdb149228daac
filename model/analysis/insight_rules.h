// The insight rules (docs/insights.md) as functions over a shared analysis context. Each appends
// its insights to `out` (unordered: the engine sorts by savings). Sync rules live in
// insight_sync_rules.cpp, GPU-timeline rules in insight_gpu_rules.cpp.
#pragma once

#include "model/analysis/gpu_activity.h"
#include "model/analysis/host_samples.h"
#include "model/analysis/insight.h"
#include "model/analysis/insight_thresholds.h"
#include "model/analysis/kernel_launch_index.h"
#include "model/analysis/simulated_savings.h"
#include "model/analysis/sync_sites.h"
#include "model/session/session.h"

#include <atomic>
#include <vector>

namespace stallscope::model {

// Per site (SyncSites order), the calls of the whole session and per rank (SyncSites::ranks):
// what syncSites counted, the count of a site that is no finding.
struct SessionCalls {
    std::vector<int64_t> calls;
    std::vector<std::vector<int64_t>> rankCalls;
};

struct AnalysisContext {
    const Session& session;
    const InsightThresholds& thresholds;
    const GpuActivity& gpu;
    const SyncSites& sites;
    const KernelLaunchIndex& launches;
    const SimulatedSavings& savings;
    const HostSamples& samples; // the Python sampler's lines (none in sessions without samples)
    const std::atomic<bool>* cancel = nullptr;
    int64_t windowStartNs = 0, windowEndNs = 1;
    int64_t windowNs = 1; // never 0, so shares stay finite
    // The window without what the recorder's own cost took of it
    // (SimulatedSavings::recorderCostInWindowNs): the savings leave that cost out, and so does
    // their share. Never 0.
    int64_t savingsWindowNs = 1;
    // In the window, the largest of the devices with work: the time not taken by work that fills
    // the device (GpuActivity::fillingBusy), which caps a site's saving.
    int64_t gpuIdleNs = 0;
    double gpuBusyShare = 0;                           // in the window, the busiest device
    SourceLanguage language = SourceLanguage::Unknown; // wording for rules without a site
    SessionCalls* sessionCalls = nullptr;              // syncSites writes it when set

    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
    Severity severityFor(double share) const;
    double shareOf(int64_t ns) const {
        return static_cast<double>(ns) / static_cast<double>(windowNs);
    }
    // A sync counts in the window (its calls, its blocked time) when it began inside it.
    bool inWindow(int64_t syncStartNs) const {
        return syncStartNs >= windowStartNs && syncStartNs <= windowEndNs;
    }
    // Rates an insight by what fixing it would save: savingsNs (at most the GPU idle time of the
    // window plus the GPU time the fix takes away: no fix recovers more), its share of the window
    // without the recorder's cost (savingsWindowNs) and the severity that share earns.
    void rateBySavings(Insight& insight, int64_t savingsNs, int64_t gpuTimeRemovedNs = 0) const;
};

namespace insight_rules {

// One finding per sync site (sync-attribution, in-loop-sync, pageable-copy, device-sync and
// gpu-bubble are its evidence), rated by the simulated saving.
void syncSites(const AnalysisContext& context, std::vector<Insight>& out);
void defaultStream(const AnalysisContext& context, std::vector<Insight>& out);
void launchBound(const AnalysisContext& context, std::vector<Insight>& out);
// The rank that arrives last at the collectives (insight_rank_rules.cpp).
void straggler(const AnalysisContext& context, std::vector<Insight>& out);
// The GPU idle while the host runs a sampled line (insight_host_rules.cpp); evidence of the
// line's finding when it has one (a sync site), else a finding of its own.
void hostGaps(const AnalysisContext& context, std::vector<Insight>& out);

// "GPU 0 · NVIDIA H100", "rank 1 · GPU 1 · NVIDIA H100" in sessions of several processes.
std::string deviceLabel(const Session& session, int32_t device);
// "data.py:88 in collate (96 % of 240 samples)", lines joined by "; ".
// "; the GPU ran at its power limit (…), so the idle time … is counted 60.0 %: …" when the
// savings were discounted for the power cap (InsightThresholds::powerCap), else empty.
std::string powerCapNote(const AnalysisContext& context);
// "; the fix keeps the GPU busy …" where the site's fix passes the GPU's projected power limit
// (SimulatedSavings::projectedClockOf), else empty.
std::string projectedClockNote(const AnalysisContext& context, int32_t site);
// "; launch times inferred …" when the replay inferred them (a light recording), else empty.
std::string inferredLaunchNote(const AnalysisContext& context);
// "; the recorder's own cost left out (… a restart, … a launch …)" and "; behind 8 or more queued
// launches a kernel starts … later …" when the session measured them
// (SimulatedSavings::recorderRestartNs, deepQueueDelayNs), else empty.
std::string calibrationNote(const AnalysisContext& context);
// The session-wide notes above (power cap, inferred launches, the recorder's cost), as one text
// for InsightReport::assumptions: "the recorder's own cost left out (…); …", or empty.
std::string assumptionsText(const AnalysisContext& context);
std::string sampledLinesText(const AnalysisContext& context,
                             const std::vector<std::pair<int32_t, int64_t>>& lines,
                             int64_t totalSamples);

} // namespace insight_rules

} // namespace stallscope::model
