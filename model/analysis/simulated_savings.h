// SimulatedSavings: what fixing each sync site would save, found by replaying the run
// (model/whatif) with the site's syncs inside the window removed, against the unmodified replay:
// the difference of the window's replayed end. Sites are simulated in decreasing blocked time (the
// SyncSites order), those above simulation.minBlockedShare of the window, at most
// simulation.maxSites of them, two replays at a time.
#pragma once

#include "model/analysis/gpu_activity.h"
#include "model/analysis/host_samples.h"
#include "model/analysis/insight_thresholds.h"
#include "model/analysis/sync_operations.h"
#include "model/analysis/sync_sites.h"
#include "model/session/session.h"
#include "model/session/session_database.h"
#include "model/whatif/replay.h"
#include "model/whatif/run_graph.h"

#include <atomic>
#include <cstdint>
#include <future>
#include <memory>
#include <span>
#include <thread>
#include <vector>

namespace stallscope::model {

// The share of the host's time after the site's syncs (from the end of each one's step to its
// thread's next call) that the Python sampler saw on the site's own lines: the statement's work
// on the value it read, which reading later takes out of the loop. 0 with fewer than
// `minSamples` samples there.
double sampledShareAfter(const whatif::RunGraph& graph, const HostSamples& samples,
                         const SyncSiteStats& site, std::span<const EventRef> syncs,
                         int64_t minSamples);

// The change that fixes a sync site, the one its card recommends: its syncs starting inside
// [windowStartNs, windowEndNs] no longer wait and, at Python sites, their statements go
// (WhatIf::removeStatementTime); but a device-wide sync that waited for the work of several
// streams waits for its own thread's stream alone (WhatIf::narrowedSyncs: "a stream or event sync
// on the work the host then uses"). What SimulatedSavings replays per site, and what the
// timeline's after-fix bars replay for a finding.
// A site whose operation is fixed by allocating once (SyncFix::Preallocate: a free or
// empty_cache in the loop) also loses its threads' allocation calls in the window
// (WhatIf::removedCalls): memory freed every step is allocated again every step. One replaced by
// a shape-static rewrite (SyncFix::FixedShape) loses the launches of its chains around the syncs
// (WhatIf::removedLaunches, replacedLaunchesOf).
whatif::WhatIf siteFix(const whatif::RunGraph& graph, std::span<const EventRef> syncs,
                       SourceLanguage language, const SyncOperation* operation,
                       int64_t windowStartNs, int64_t windowEndNs);
// The steps (global ids, sorted) that launched a device->host copy of a value (kValueReadBytes): a
// scalar the host read (`.item()`, `bool()`). One scan of the graph's operations, for siteFixOf.
std::vector<uint32_t> scalarReadSteps(const whatif::RunGraph& graph);
// siteFix of site `site` of `sites`, plus (WhatIf::removedLaunches):
// - where the fix reads the value later or decides on the GPU (SyncFix::ReadLater, DecideOnGpu),
//   the scalar's copy launched just before each removed wait (a step of `scalarReads`,
//   scalarReadSteps): a value the host no longer reads is not copied to it; where the wait is
//   the copy call itself (cudaMemcpy of a norm), that call's value copy (WhatIf::removedOps);
// - where it reads later, the work of each call between its first and last sync: a print(tensor)
//   made every N steps takes its formatting's kernels and dispatch with its reads
//   (SyncSites::continuesCall tells the syncs of one call).
// What SimulatedSavings replays.
whatif::WhatIf siteFixOf(const whatif::RunGraph& graph, const SyncSites& sites, int32_t site,
                         std::span<const uint32_t> scalarReads, int64_t windowStartNs,
                         int64_t windowEndNs);
// Whether `fix` narrows device-wide syncs rather than removing them all.
inline bool narrowsDeviceSyncs(const whatif::WhatIf& fix) {
    return !fix.narrowedSyncs.empty() && fix.removedSyncs.empty();
}

// Whether the recording's GPUs ran at their power limit while busy (InsightThresholds::powerCap,
// from the recorder's meta gpu_power_*): then a fix that fills GPU idle time slows the kernels.
// A recording below the limit projects the power of a busier GPU: its steady samples' power above
// the lowest sample grows with the share of time the GPU is busy. A fix that keeps the GPU busy
// enough to pass the limit slows the kernels by kernelSlowdown. Sessions without the samples
// (other recorders, imports, older files) are neither capped nor projected.
struct GpuPowerCap {
    int64_t busySamples = 0;
    int64_t cappedSamples = 0;
    bool capped = false;
    // The projection (not for a capped recording): W drawn at `busier` times the recorded duty.
    bool projects = false;
    double lowestW = 0, steadyW = 0, limitW = 0;
    double projectedW(double busier) const { return lowestW + busier * (steadyW - lowestW); }
    // How much longer kernels take at `busier` times the recorded duty: 1 below the limit, else
    // (drawn / available)^s above the lowest sample, s = powerCap.slowdownShare.
    double kernelSlowdown(double busier, const InsightThresholds& thresholds) const;
};
GpuPowerCap gpuPowerCap(const Session& session, const InsightThresholds& thresholds);
// What a fix that fills `filledIdleNs` of GPU idle time saves: all of it, or at the power cap the
// 1 - powerCap.slowdownShare of it that lower clocks leave.
int64_t savedAtPowerCap(int64_t filledIdleNs, const GpuPowerCap& cap,
                        const InsightThresholds& thresholds);

// The run graph, built on a thread of its own from construction on: it needs the session and its
// CUDA events alone, so the analysis finds the GPU activity and the sync sites meanwhile. The
// database stays with the constructing thread, which reads the events and hands them over
// (provideCudaEvents); the build waits for them only once its steps and streams are done.
class RunGraphBuild {
public:
    RunGraphBuild(const Session& session, const std::atomic<bool>* cancel);
    RunGraphBuild(const RunGraphBuild&) = delete;
    RunGraphBuild& operator=(const RunGraphBuild&) = delete;
    ~RunGraphBuild(); // hands over no events if none were given, then waits for the build

    // Once, from the constructing thread (empty: the session has none, or no file).
    void provideCudaEvents(std::vector<CudaEventInfo> events);
    // Waits for the build: the graph, or null when it was cancelled. Once.
    std::shared_ptr<whatif::RunGraph> take();

private:
    std::vector<CudaEventInfo> m_events;
    std::promise<void> m_eventsGiven;
    bool m_given = false;
    std::shared_ptr<whatif::RunGraph> m_graph;
    bool m_built = false;
    std::thread m_thread;
};

class SimulatedSavings {
public:
    // Replays `graph` (built, of `session`). Returns false when cancelled.
    // `samples` (may be empty): the Python sampler's lines, for the statement's own time after
    // a removed sync (sampledShareAfter).
    bool build(const Session& session, std::shared_ptr<whatif::RunGraph> graph,
               const SyncSites& sites, const HostSamples& samples, int64_t windowStartNs,
               int64_t windowEndNs, const InsightThresholds& thresholds,
               const std::atomic<bool>* cancel);

    bool simulated(int32_t site) const { return m_saving[site] >= 0; }
    // The replayed saving of removing the site's waits, -1 when the site was not simulated.
    int64_t savingOf(int32_t site) const { return m_saving[site]; }
    // What another change saves (a launch-bound stretch as CUDA graphs): replayed like a site's
    // fix, without the recorder's cost, against the unmodified replay over the window, and
    // discounted at the power cap like them. -1 without a built graph or when cancelled.
    int64_t replayedSavingOf(whatif::WhatIf change, const std::atomic<bool>* cancel) const;
    // GPU time the site's fix takes away (pageable copies made pinned).
    int64_t gpuTimeRemovedOf(int32_t site) const { return m_gpuTimeRemoved[site]; }
    // The change the site's saving replayed (siteFix, with the statement's share of the time
    // after its syncs: sampledShareAfter); null for a site not simulated.
    const std::shared_ptr<const whatif::WhatIf>& fixOf(int32_t site) const { return m_fix[site]; }
    // Whether the site's fix narrowed its device-wide syncs to their own stream (siteFix) rather
    // than removing its syncs.
    bool narrowedOf(int32_t site) const { return m_fix[site] && narrowsDeviceSyncs(*m_fix[site]); }
    // Where the fix's busier GPU passes its power limit (GpuPowerCap::projects): the share of
    // time the fixed replay keeps the busiest GPU busy, and how much longer its kernels were
    // replayed; kernelScale 1 where the limit was not passed.
    struct ProjectedClock {
        double duty = 0;
        double kernelScale = 1.0;
    };
    const ProjectedClock& projectedClockOf(int32_t site) const { return m_projected[site]; }
    // The same share for the unmodified replay.
    double recordedDuty() const { return m_recordedDuty; }
    std::shared_ptr<const whatif::RunGraph> sharedGraph() const { return m_graph; }
    // The power cap the savings were discounted for (capped false: not discounted).
    const GpuPowerCap& powerCap() const { return m_powerCap; }
    // Whether the replay inferred launches (a light recording: RunGraph::launchesInferred).
    bool launchesInferred() const { return m_graph && m_graph->launchesInferred(); }
    // The recorder's own cost the replays left out (whatif::Latencies::recorder*; 0 when the
    // session did not measure it).
    int64_t recorderRestartNs() const {
        return m_graph ? m_graph->latencies().recorderRestartNs : 0;
    }
    int64_t recorderLaunchNs() const { return m_graph ? m_graph->latencies().recorderLaunchNs : 0; }
    // The recorder's cost as its overhead probe measured it in this run (not measured: the
    // latencies above are the recording machine's calibration).
    const whatif::MeasuredRecorderCost* measuredRecorderCost() const {
        return m_graph && m_graph->measuredRecorderCost().measured()
                   ? &m_graph->measuredRecorderCost()
                   : nullptr;
    }
    // How much of the window's GPU work the recorder's own cost took: its recorded span less
    // the unmodified replay's without that cost (0 when the session did not measure the cost).
    // The savings are of the run without it, and so are their shares (AnalysisContext).
    int64_t recorderCostInWindowNs() const { return m_recorderCostNs; }
    // The GPU's deep-queue delay the replays used (whatif::Latencies::deepQueueDelayNs).
    int64_t deepQueueDelayNs() const { return m_graph ? m_graph->latencies().deepQueueDelayNs : 0; }

private:
    GpuPowerCap m_powerCap;
    std::shared_ptr<whatif::RunGraph> m_graph;
    std::vector<int64_t> m_saving;                            // per site
    std::vector<int64_t> m_gpuTimeRemoved;                    // per site
    std::vector<std::shared_ptr<const whatif::WhatIf>> m_fix; // per site, one worker each
    std::vector<ProjectedClock> m_projected;                  // per site
    double m_recordedDuty = 0;
    InsightThresholds m_thresholds;
    int64_t m_windowStartNs = 0, m_windowEndNs = 0;
    int64_t m_baselineEndNs = 0; // the unmodified replay's end of the window
    int64_t m_recorderCostNs = 0;
    bool m_built = false;
};

} // namespace stallscope::model
