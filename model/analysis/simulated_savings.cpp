#include "model/analysis/simulated_savings.h"

#include "format/api_names.h"
#include "format/session_meta.h"
#include "format/session_schema.h"
#include "model/analysis/replaced_launches.h"
#include "model/analysis/sync_copies.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <thread>
#include <unordered_map>

namespace stallscope::model {

GpuPowerCap gpuPowerCap(const Session& session, const InsightThresholds& thresholds) {
    GpuPowerCap cap;
    cap.busySamples = session.metaCount(format::meta::kGpuPowerBusySamples).value_or(-1);
    cap.cappedSamples = session.metaCount(format::meta::kGpuPowerCappedSamples).value_or(-1);
    cap.capped = cap.busySamples >= thresholds.powerCap.minBusySamples && cap.cappedSamples >= 0 &&
                 cap.cappedSamples <= cap.busySamples &&
                 static_cast<double>(cap.cappedSamples) >=
                     thresholds.powerCap.minCappedShare * static_cast<double>(cap.busySamples);
    if (cap.capped)
        return cap;
    namespace meta = format::meta;
    const std::optional<int64_t> samples = session.metaCount(meta::kGpuPowerSteadySamples);
    const std::optional<int64_t> steadyW = session.metaCount(meta::kGpuPowerSteadyW);
    const std::optional<int64_t> lowestW = session.metaCount(meta::kGpuPowerMinW);
    const std::optional<int64_t> limitW = session.metaCount(meta::kGpuPowerLimitW);
    // A file's meta may say anything: only a consistent set projects (steady power at or above
    // the lowest sample and below the limit).
    if (!samples || !steadyW || !lowestW || !limitW || *samples < thresholds.powerCap.minSamples ||
        *steadyW < *lowestW || *limitW <= *steadyW || *limitW > 100'000)
        return cap;
    cap.projects = true;
    cap.lowestW = static_cast<double>(*lowestW);
    cap.steadyW = static_cast<double>(*steadyW);
    cap.limitW = static_cast<double>(*limitW);
    return cap;
}

double GpuPowerCap::kernelSlowdown(double busier, const InsightThresholds& thresholds) const {
    const double drawn = projectedW(busier) - lowestW, available = limitW - lowestW;
    if (!projects || available <= 0 || !(drawn > available))
        return 1.0;
    return std::pow(drawn / available, std::clamp(thresholds.powerCap.slowdownShare, 0.0, 1.0));
}

int64_t savedAtPowerCap(int64_t filledIdleNs, const GpuPowerCap& cap,
                        const InsightThresholds& thresholds) {
    if (!cap.capped || filledIdleNs <= 0)
        return filledIdleNs;
    const double kept = 1.0 - std::clamp(thresholds.powerCap.slowdownShare, 0.0, 1.0);
    return std::llround(kept * static_cast<double>(filledIdleNs));
}

namespace {

// Below this, a projected slowdown is not worth a second replay (0.1 %).
constexpr double kSmallestKernelScale = 1e-3;

int64_t busiestDevice(const std::vector<int64_t>& busyNsPerDevice) {
    return busyNsPerDevice.empty()
               ? 0
               : *std::max_element(busyNsPerDevice.begin(), busyNsPerDevice.end());
}

// The window's recorded span of GPU work less its span in `baseline`, replayed without the
// recorder's cost: what that cost took of it (0 when the session did not measure the cost or the
// window has no GPU work).
int64_t recorderCostOf(const whatif::ReplayResult& baseline, const whatif::Latencies& latencies) {
    // The recorded ends are set where the replayed ones are.
    constexpr int64_t kNone = std::numeric_limits<int64_t>::min();
    if ((latencies.recorderLaunchNs == 0 && latencies.recorderRestartNs == 0) ||
        baseline.windowFirstOpStartNs == kNone || baseline.windowEndNs == kNone)
        return 0;
    const int64_t recorded = baseline.recordedWindowEndNs - baseline.recordedWindowFirstOpStartNs;
    const int64_t replayed = baseline.windowEndNs - baseline.windowFirstOpStartNs;
    return std::max<int64_t>(0, recorded - replayed);
}

// Runs job(0) .. job(count - 1) on this thread and one more (when the machine has two cores);
// false when a job returned false (cancelled): the others stop taking jobs.
bool runOnTwoThreads(size_t count, const std::function<bool(size_t)>& job) {
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    auto work = [&] {
        for (size_t i = next++; i < count && !failed.load(); i = next++)
            if (!job(i))
                failed.store(true);
    };
    std::thread helper;
    if (count > 1 && std::thread::hardware_concurrency() > 1)
        helper = std::thread(work);
    work();
    if (helper.joinable())
        helper.join();
    return !failed.load();
}

} // namespace

namespace {

// Whether a device-wide sync awaited the work of more than one stream.
bool awaitedSeveralStreams(const whatif::RunGraph& graph, const EventRef& sync) {
    const SyncColumns& syncs = graph.session().hostLanes[sync.lane].syncs;
    if (syncs.kind[sync.index] != static_cast<uint8_t>(format::SyncKind::Device))
        return false;
    int32_t first = -1;
    for (uint32_t op : graph.awaited(sync.lane, sync.index)) {
        const int32_t lane = graph.locateOp(op).first;
        if (first >= 0 && lane != first)
            return true;
        first = lane;
    }
    return false;
}

} // namespace

namespace {

// The allocation calls (global step ids) of the threads that made `syncs`, inside the window.
std::vector<uint32_t> allocationCallsOf(const whatif::RunGraph& graph,
                                        std::span<const EventRef> syncs, int64_t windowStartNs,
                                        int64_t windowEndNs) {
    const Session& session = graph.session();
    std::vector<int32_t> lanes;
    for (const EventRef& sync : syncs)
        if (std::find(lanes.begin(), lanes.end(), sync.lane) == lanes.end())
            lanes.push_back(sync.lane);
    std::unordered_map<uint32_t, bool> allocates; // by name id
    std::vector<uint32_t> calls;
    for (const int32_t lane : lanes) {
        const whatif::RunGraph::HostThread& thread = graph.threads()[lane];
        const ApiCallColumns& api = session.hostLanes[lane].apiCalls;
        for (uint32_t step = 0; step < thread.steps.size(); ++step) {
            const uint32_t ref = thread.steps[step];
            if (ref & whatif::RunGraph::kSyncStep || api.start[ref] < windowStartNs ||
                api.start[ref] > windowEndNs)
                continue;
            const uint32_t name = api.nameId[ref];
            auto [known, added] = allocates.emplace(name, false);
            if (added)
                known->second = format::isAllocationCall(session.string(name));
            if (known->second)
                calls.push_back(thread.firstStep + step);
        }
    }
    return calls;
}

// Whether operation k of stream lane `l` copies a value to the host (sync_copies.h).
bool readsValue(const whatif::RunGraph& graph, int32_t l, uint32_t k) {
    return graph.opKind(l, k) == whatif::RunGraph::OpKind::Memcpy &&
           model::readsValue(graph.session().streamLanes[l].memcpys, graph.opIndex(l, k));
}

whatif::WhatIf sortedUnique(whatif::WhatIf fix) {
    std::sort(fix.removedLaunches.begin(), fix.removedLaunches.end());
    fix.removedLaunches.erase(std::unique(fix.removedLaunches.begin(), fix.removedLaunches.end()),
                              fix.removedLaunches.end());
    return fix;
}

} // namespace

whatif::WhatIf siteFix(const whatif::RunGraph& graph, std::span<const EventRef> syncs,
                       SourceLanguage language, const SyncOperation* operation,
                       int64_t windowStartNs, int64_t windowEndNs) {
    const Session& session = graph.session();
    whatif::WhatIf fix;
    for (const EventRef& sync : syncs) {
        const int64_t start = session.hostLanes[sync.lane].syncs.start[sync.index];
        if (start < windowStartNs || start > windowEndNs)
            continue;
        if (awaitedSeveralStreams(graph, sync))
            fix.narrowedSyncs.push_back(sync);
        else
            fix.removedSyncs.push_back(sync);
    }
    // A site whose device-wide syncs all waited for several streams is fixed by narrowing them;
    // any other site by removing its syncs, the device-wide ones too.
    if (!fix.removedSyncs.empty() && !fix.narrowedSyncs.empty()) {
        fix.removedSyncs.insert(fix.removedSyncs.end(), fix.narrowedSyncs.begin(),
                                fix.narrowedSyncs.end());
        fix.narrowedSyncs.clear();
    }
    fix.removeStatementTime = language == SourceLanguage::Python;
    if (operation && operation->fix == SyncFix::Preallocate)
        fix.removedCalls = allocationCallsOf(graph, syncs, windowStartNs, windowEndNs);
    if (operation && operation->fix == SyncFix::FixedShape)
        fix.removedLaunches = replacedLaunchesOf(graph, syncs, windowStartNs, windowEndNs);
    return fix;
}

std::vector<uint32_t> scalarReadSteps(const whatif::RunGraph& graph) {
    std::vector<uint32_t> steps;
    for (size_t lane = 0; lane < graph.streams().size(); ++lane) {
        const auto l = static_cast<int32_t>(lane);
        const whatif::RunGraph::Stream& stream = graph.streams()[lane];
        for (uint32_t k = 0; k < stream.ops.size(); ++k) {
            if (!readsValue(graph, l, k))
                continue;
            if (const uint32_t step = graph.launchStep(stream.firstOp + k); step != whatif::kNone)
                steps.push_back(step);
        }
    }
    std::sort(steps.begin(), steps.end());
    return steps;
}

whatif::WhatIf siteFixOf(const whatif::RunGraph& graph, const SyncSites& sites, int32_t site,
                         std::span<const uint32_t> scalarReads, int64_t windowStartNs,
                         int64_t windowEndNs) {
    const SyncSiteStats& stats = sites.stats()[site];
    const std::span<const EventRef> syncs = sites.syncsOf(site);
    whatif::WhatIf fix =
        siteFix(graph, syncs, stats.site.language, stats.operation, windowStartNs, windowEndNs);
    if (!stats.operation || (stats.operation->fix != SyncFix::ReadLater &&
                             stats.operation->fix != SyncFix::DecideOnGpu))
        return fix;
    const Session& session = graph.session();
    // A value no longer read on the host (read later, or decided on the GPU) is not copied to it
    // either: the scalar's device->host copy launched just before each removed wait goes too
    // (`.item()`, `bool()`: a cudaMemcpyAsync of the value, then the stream sync).
    // Where the wait was the copy call itself (cudaMemcpy of a norm into a float), its value copy
    // leaves the GPU with it (WhatIf::removedOps), rather than made pinned and kept every step.
    for (const EventRef& sync : fix.removedSyncs) {
        const uint32_t step = graph.threads()[sync.lane].stepOfSync[sync.index];
        const uint32_t global = graph.threads()[sync.lane].firstStep + step;
        if (step != whatif::kNone && step > 0 &&
            std::binary_search(scalarReads.begin(), scalarReads.end(), global - 1))
            fix.removedLaunches.push_back(global - 1);
        if (step == whatif::kNone)
            continue;
        for (const uint32_t op : graph.awaited(sync.lane, sync.index)) {
            const auto [lane, k] = graph.locateOp(op);
            if (graph.launchStep(op) == global && readsValue(graph, lane, k))
                fix.removedOps.push_back(op);
        }
    }
    if (stats.operation->fix != SyncFix::ReadLater)
        return sortedUnique(std::move(fix));
    // The site's syncs run in lane and time order: one that continues a call follows the call's
    // previous sync, the thread's blocking sync before it (never past another site's).
    for (size_t k = 1; k < syncs.size(); ++k) {
        const EventRef& sync = syncs[k];
        const EventRef& previous = syncs[k - 1];
        const SyncColumns& columns = session.hostLanes[sync.lane].syncs;
        const int64_t start = columns.start[sync.index];
        if (previous.lane != sync.lane || !sites.continuesCall(sync.lane, sync.index) ||
            start < windowStartNs || start > windowEndNs)
            continue;
        bool adjacent = true;
        for (uint32_t j = previous.index + 1; j < sync.index && adjacent; ++j)
            adjacent = !isHostBlocking(columns.kind[j]);
        if (!adjacent)
            continue;
        const whatif::RunGraph::HostThread& thread = graph.threads()[sync.lane];
        const uint32_t from = thread.stepOfSync[previous.index];
        const uint32_t to = thread.stepOfSync[sync.index];
        if (from == whatif::kNone || to == whatif::kNone)
            continue;
        for (uint32_t step = from + 1; step < to; ++step)
            if (!(thread.steps[step] & whatif::RunGraph::kSyncStep))
                fix.removedLaunches.push_back(thread.firstStep + step);
    }
    return sortedUnique(std::move(fix));
}

RunGraphBuild::RunGraphBuild(const Session& session, const std::atomic<bool>* cancel)
    : m_graph(std::make_shared<whatif::RunGraph>()) {
    std::shared_future<void> given = m_eventsGiven.get_future().share();
    m_thread = std::thread([this, &session, cancel, given] {
        m_built = m_graph->build(
            session,
            [this, given]() -> std::span<const CudaEventInfo> {
                given.wait();
                return m_events;
            },
            cancel);
    });
}

RunGraphBuild::~RunGraphBuild() {
    if (!m_given)
        provideCudaEvents({});
    if (m_thread.joinable())
        m_thread.join();
}

void RunGraphBuild::provideCudaEvents(std::vector<CudaEventInfo> events) {
    if (m_given)
        return;
    m_events = std::move(events);
    m_given = true;
    m_eventsGiven.set_value();
}

std::shared_ptr<whatif::RunGraph> RunGraphBuild::take() {
    if (!m_given)
        provideCudaEvents({});
    if (m_thread.joinable())
        m_thread.join();
    return m_built ? std::move(m_graph) : nullptr;
}

double sampledShareAfter(const whatif::RunGraph& graph, const HostSamples& samples,
                         const SyncSiteStats& site, std::span<const EventRef> syncs,
                         int64_t minSamples) {
    if (samples.empty() || !site.site.hasLocation())
        return 0;
    std::vector<int32_t> ownLines;
    for (size_t l = 0; l < samples.lines().size(); ++l) {
        const SourceSite& line = samples.lines()[l];
        if (line.file == site.site.file &&
            (line.line == site.site.line || site.joinsLine(line.line)))
            ownLines.push_back(static_cast<int32_t>(l));
    }
    if (ownLines.empty())
        return 0;
    std::map<int32_t, int64_t> perLine;
    int64_t total = 0;
    for (const EventRef& sync : syncs) {
        const whatif::RunGraph::HostThread& thread = graph.threads()[sync.lane];
        const uint32_t step = thread.stepOfSync[sync.index];
        if (step == whatif::kNone || step + 1 >= thread.steps.size())
            continue;
        total += samples.tally(sync.lane, graph.stepEnd(sync.lane, step),
                               graph.stepStart(sync.lane, step + 1), perLine);
    }
    if (total < std::max<int64_t>(minSamples, 1))
        return 0;
    int64_t own = 0;
    for (const int32_t line : ownLines)
        own += perLine[line];
    return static_cast<double>(own) / static_cast<double>(total);
}

bool SimulatedSavings::build(const Session& session, std::shared_ptr<whatif::RunGraph> graph,
                             const SyncSites& sites, const HostSamples& samples,
                             int64_t windowStartNs, int64_t windowEndNs,
                             const InsightThresholds& thresholds, const std::atomic<bool>* cancel) {
    m_saving.assign(sites.siteCount(), -1);
    m_gpuTimeRemoved.assign(sites.siteCount(), 0);
    m_fix.assign(sites.siteCount(), nullptr);
    m_built = false;
    m_thresholds = thresholds;
    m_windowStartNs = windowStartNs;
    m_windowEndNs = windowEndNs;
    m_graph = std::move(graph);
    if (!m_graph)
        return false;

    whatif::ReplayOptions options;
    options.windowStartNs = windowStartNs;
    options.windowEndNs = windowEndNs;
    options.cancel = cancel;
    const whatif::Replayer replayer(*m_graph);

    // Sites worth a replay: the largest by blocked time (SyncSites' order).
    const auto windowNs = static_cast<double>(std::max<int64_t>(windowEndNs - windowStartNs, 1));
    std::vector<int32_t> chosen;
    for (size_t s = 0; s < sites.siteCount() &&
                       chosen.size() < static_cast<size_t>(thresholds.simulation.maxSites);
         ++s) {
        const SyncSiteStats& stats = sites.stats()[s];
        if (!stats.isUserFinding())
            continue;
        if (static_cast<double>(format::addSaturated(stats.blockedNs, stats.bubbleNs)) / windowNs <
            thresholds.simulation.minBlockedShare)
            break;
        chosen.push_back(static_cast<int32_t>(s));
    }
    m_powerCap = gpuPowerCap(session, thresholds);
    // The unmodified replay is one more job for the two workers: the savings compare against it.
    // Both sides leave out the recorder's own cost where the session measured it.
    whatif::WhatIf withoutRecorder;
    withoutRecorder.withoutRecorderOverhead = true;
    whatif::ReplayResult baseline;
    const std::vector<uint32_t> scalarReads = scalarReadSteps(*m_graph); // once, for every site
    std::vector<whatif::WhatIf> fixes(chosen.size());
    std::vector<int64_t> replayedEnd(chosen.size(), 0);
    std::vector<int64_t> busiestNs(chosen.size(), 0);
    std::vector<int64_t> replayedFirstOp(chosen.size(), 0);
    std::vector<char> replayed(chosen.size(), 0); // per chosen site, written by one worker
    auto replaySite = [&](size_t i) {
        const whatif::ReplayResult after = replayer.replay(fixes[i], options);
        if (after.cancelled)
            return false;
        replayedEnd[i] = after.windowEndNs;
        replayedFirstOp[i] = after.windowFirstOpStartNs;
        busiestNs[i] = busiestDevice(after.busyNsPerDevice);
        replayed[i] = 1;
        m_gpuTimeRemoved[chosen[i]] = after.gpuTimeRemovedNs;
        return true;
    };
    const bool done = runOnTwoThreads(chosen.size() + 1, [&](size_t i) {
        if (i == chosen.size()) {
            baseline = replayer.replay(withoutRecorder, options);
            return !baseline.cancelled;
        }
        const SyncSiteStats& stats = sites.stats()[chosen[i]];
        fixes[i] = siteFixOf(*m_graph, sites, chosen[i], scalarReads, windowStartNs, windowEndNs);
        // A Python statement's work on what it read (C++'s time after a call is its own work).
        if (stats.site.language == SourceLanguage::Python)
            fixes[i].statementShareAfter =
                sampledShareAfter(*m_graph, samples, stats, fixes[i].removedSyncs,
                                  thresholds.sampledLines.minSamples);
        m_fix[chosen[i]] = std::make_shared<const whatif::WhatIf>(fixes[i]);
        fixes[i].withoutRecorderOverhead = true;
        if (fixes[i].removedSyncs.empty() && fixes[i].narrowedSyncs.empty()) {
            m_saving[chosen[i]] = 0;
            return true;
        }
        return replaySite(i);
    });
    if (!done || (cancel && cancel->load()) || baseline.cancelled)
        return false;

    // A fix that keeps the GPU busy enough to pass its power limit: the site is replayed again with
    // its kernels as much longer as the lower clock makes them. The recorded duty is the
    // unmodified replay's; too little of it says nothing of a busy GPU's power.
    m_projected.assign(sites.siteCount(), ProjectedClock{});
    // The share of the replayed span of the window's GPU work the busiest GPU works in. In
    // doubles: a replay with nothing in the window has INT64_MIN there.
    auto dutyOf = [](int64_t busyNs, int64_t firstNs, int64_t endNs) {
        const double length = static_cast<double>(endNs) - static_cast<double>(firstNs);
        return length > 0 ? std::min(1.0, static_cast<double>(busyNs) / length) : 0.0;
    };
    m_recordedDuty = dutyOf(busiestDevice(baseline.busyNsPerDevice), baseline.windowFirstOpStartNs,
                            baseline.windowEndNs);
    if (m_powerCap.projects && m_recordedDuty >= thresholds.powerCap.minRecordedDuty) {
        std::vector<size_t> slower;
        for (size_t i = 0; i < chosen.size(); ++i) {
            if (!replayed[i])
                continue;
            ProjectedClock& projected = m_projected[chosen[i]];
            projected.duty = dutyOf(busiestNs[i], replayedFirstOp[i], replayedEnd[i]);
            // The recording itself drew less than its limit (gpuPowerCap), so at its own duty the
            // slowdown is 1.
            const double scale =
                m_powerCap.kernelSlowdown(projected.duty / m_recordedDuty, thresholds);
            if (scale > 1.0 + kSmallestKernelScale) {
                projected.kernelScale = scale;
                fixes[i].kernelTimeScale = scale;
                slower.push_back(i);
            }
        }
        if (!runOnTwoThreads(slower.size(), [&](size_t j) { return replaySite(slower[j]); }))
            return false;
    }
    for (size_t i = 0; i < chosen.size(); ++i) {
        if (!replayed[i])
            continue;
        int64_t saving = std::max<int64_t>(0, baseline.windowEndNs - replayedEnd[i]);
        // At the power cap, the GPU idle time the fix fills costs clock speed; GPU time the fix
        // removes (copies made pinned) is saved whole.
        const int64_t removed = m_gpuTimeRemoved[chosen[i]];
        if (saving > removed)
            saving = removed + savedAtPowerCap(saving - removed, m_powerCap, thresholds);
        m_saving[chosen[i]] = saving;
    }
    m_baselineEndNs = baseline.windowEndNs;
    m_recorderCostNs = recorderCostOf(baseline, m_graph->latencies());
    m_built = true;
    return true;
}

int64_t SimulatedSavings::replayedSavingOf(whatif::WhatIf change,
                                           const std::atomic<bool>* cancel) const {
    if (!m_built)
        return -1;
    whatif::ReplayOptions options;
    options.windowStartNs = m_windowStartNs;
    options.windowEndNs = m_windowEndNs;
    options.cancel = cancel;
    change.withoutRecorderOverhead = true;
    const whatif::ReplayResult after = whatif::Replayer(*m_graph).replay(change, options);
    if (after.cancelled)
        return -1;
    // Nothing ended in the window (both ends INT64_MIN): nothing to save.
    if (after.windowEndNs == std::numeric_limits<int64_t>::min() ||
        m_baselineEndNs == std::numeric_limits<int64_t>::min())
        return 0;
    int64_t saving = std::max<int64_t>(0, m_baselineEndNs - after.windowEndNs);
    const int64_t removed = after.gpuTimeRemovedNs;
    if (saving > removed)
        saving = removed + savedAtPowerCap(saving - removed, m_powerCap, m_thresholds);
    return saving;
}

} // namespace stallscope::model
