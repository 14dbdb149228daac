#include "model/analysis/session_statistics.h"

#include "format/session_schema.h"
#include "model/session/session_summary.h"

#include <algorithm>
#include <numeric>

namespace stallscope::model {

namespace {

// Host-blocking syncs overlapping the window, and their blocked time inside it.
void addHostBlocked(const Session& session, const AnalysisWindow& window,
                    SessionStatistics& stats) {
    std::vector<char> blocked(session.processes.size(), 0);
    for (const HostLane& lane : session.hostLanes) {
        const SyncColumns& syncs = lane.syncs;
        const int32_t process =
            lane.threadIndex >= 0 ? session.threads[lane.threadIndex].processIndex : -1;
        for (size_t i = syncs.firstEndingAfter(window.startNs);
             i < syncs.size() && syncs.start[i] < window.endNs; ++i) {
            if (!isHostBlocking(syncs.kind[i]) || !window.overlaps(syncs.start[i], syncs.end[i]))
                continue;
            ++stats.hostSyncCount;
            stats.hostBlockedNs = format::addSaturated(
                stats.hostBlockedNs, window.overlapNs(syncs.start[i], syncs.end[i]));
            if (process >= 0 && static_cast<size_t>(process) < blocked.size())
                blocked[process] = 1;
        }
    }
    stats.hostBlockingProcesses = std::count(blocked.begin(), blocked.end(), 1);
    stats.hostBlockingRanks = true;
    for (size_t p = 0; p < blocked.size(); ++p)
        if (blocked[p] && !session.processes[p].rank)
            stats.hostBlockingRanks = false;
}

} // namespace

SessionStatistics SessionStatisticsBuilder::compute(const Session& session, const GpuActivity& gpu,
                                                    const SyncSites& sites,
                                                    const AnalysisWindow& window) {
    SessionStatistics stats;
    stats.startNs = session.startNs;
    stats.endNs = session.endNs;
    stats.wallNs = session.durationNs();
    stats.eventCount = session.counts.total();
    stats.windowStartNs = window.startNs;
    stats.windowEndNs = window.endNs;
    stats.windowNs = window.durationNs();
    stats.windowLabel = window.label;
    stats.captured = capturedText(session);
    stats.startupNs = std::max<int64_t>(0, window.startNs - session.startNs);
    stats.steps = window.steps;
    stats.stepNs = window.steps > 0 ? window.durationNs() / window.steps : 0;
    stats.warmupNs = window.loop.warmupNs;
    stats.tailNs = window.loop.tailNs;
    const double windowNs = static_cast<double>(std::max<int64_t>(stats.windowNs, 1));

    int64_t devicesWithWork = 0;
    for (size_t d = 0; d < gpu.deviceCount(); ++d) {
        // CUPTI describes every visible GPU; one that ran nothing of this process (the other
        // ranks' GPUs on a multi-GPU host) is no device of the run.
        if (gpu.streamsOf(static_cast<int32_t>(d)).empty())
            continue;
        const DeviceInfo& info = session.devices[d];
        DeviceBusy device;
        device.deviceIndex = static_cast<int32_t>(d);
        device.label = "GPU " + std::to_string(info.deviceIndex) +
                       (info.name.empty() ? std::string() : " · " + info.name);
        if (session.processes.size() > 1 && info.processIndex >= 0)
            device.label = session.processLabel(info.processIndex) + " · " + device.label;
        device.busyNs = window.overlapNs(gpu.busy(static_cast<int32_t>(d)));
        device.busyShare = static_cast<double>(device.busyNs) / windowNs;
        stats.gpuBusyNs = format::addSaturated(stats.gpuBusyNs, device.busyNs);
        devicesWithWork += device.busyNs > 0 ? 1 : 0;
        stats.devices.push_back(std::move(device));
    }
    stats.gpuBusyShare = devicesWithWork == 0
                             ? 0.0
                             : static_cast<double>(stats.gpuBusyNs) /
                                   (windowNs * static_cast<double>(devicesWithWork));

    addHostBlocked(session, window, stats);
    // A run's processes each block in their own time: the share of the mean one, as for the GPUs.
    stats.hostBlockedShare =
        static_cast<double>(stats.hostBlockedNs) /
        (windowNs * static_cast<double>(std::max<int64_t>(stats.hostBlockingProcesses, 1)));
    for (size_t s = 0; s < std::min(kTopSites, sites.siteCount()); ++s)
        stats.topSites.push_back(static_cast<int32_t>(s)); // sites are sorted by blocked time

    // Kernels by name: dense arrays over string ids (names are interned, so few).
    std::vector<int64_t> count(session.strings.size(), 0), total(session.strings.size(), 0),
        longest(session.strings.size(), 0);
    int64_t allKernelNs = 0;
    for (const StreamLane& lane : session.streamLanes) {
        const KernelColumns& kernels = lane.kernels;
        for (size_t i = 0; i < kernels.size(); ++i) {
            const uint32_t name = kernels.nameId[i];
            if (name >= count.size())
                continue;
            const int64_t duration = kernels.duration(i);
            ++count[name];
            total[name] = format::addSaturated(total[name], duration);
            longest[name] = std::max(longest[name], duration);
            allKernelNs = format::addSaturated(allKernelNs, duration);
        }
    }
    std::vector<uint32_t> names;
    for (uint32_t n = 0; n < count.size(); ++n)
        if (count[n] > 0)
            names.push_back(n);
    const size_t top = std::min(kTopKernels, names.size());
    std::partial_sort(
        names.begin(), names.begin() + static_cast<std::ptrdiff_t>(top), names.end(),
        [&](uint32_t a, uint32_t b) { return total[a] != total[b] ? total[a] > total[b] : a < b; });
    for (size_t i = 0; i < top; ++i) {
        const uint32_t n = names[i];
        stats.topKernels.push_back(
            {session.string(n), count[n], total[n], longest[n],
             allKernelNs > 0 ? double(total[n]) / double(allKernelNs) : 0.0});
    }
    return stats;
}

} // namespace stallscope::model
