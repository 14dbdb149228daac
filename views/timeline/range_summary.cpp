#include "views/timeline/range_summary.h"

#include "model/session/session.h"
#include "views/timeline/event_style.h"
#include "views/timeline/gpu_busy_track.h"

#include <algorithm>

namespace stallscope::views {

namespace {

// Events of `columns` overlapping [start, end): the first that may overlap to the first that
// starts at or after the end (nested API calls ending before start may be counted; rare).
size_t overlapping(const model::IntervalColumns& columns, int64_t start, int64_t end) {
    const size_t first = columns.firstEndingAfter(start);
    const size_t last = columns.firstStartingAtOrAfter(end);
    return last > first ? last - first : 0;
}

// Length of the union of the intervals of `sources` inside [start, end): a merge by start time
// over the few columns of a device (linear scan of the heads; k is small).
int64_t unionInside(const std::vector<const model::IntervalColumns*>& sources, int64_t start,
                    int64_t end) {
    std::vector<size_t> next(sources.size());
    std::vector<size_t> stop(sources.size());
    for (size_t s = 0; s < sources.size(); ++s) {
        next[s] = sources[s]->firstEndingAfter(start);
        stop[s] = sources[s]->firstStartingAtOrAfter(end);
    }
    int64_t total = 0;
    int64_t runStart = 0;
    int64_t runEnd = start; // covered up to here
    bool inRun = false;
    for (;;) {
        size_t pick = sources.size();
        for (size_t s = 0; s < sources.size(); ++s)
            if (next[s] < stop[s] &&
                (pick == sources.size() ||
                 sources[s]->start[next[s]] < sources[pick]->start[next[pick]]))
                pick = s;
        if (pick == sources.size())
            break;
        const int64_t s0 = std::max(sources[pick]->start[next[pick]], start);
        const int64_t s1 = std::min(sources[pick]->end[next[pick]], end);
        ++next[pick];
        if (s1 <= s0)
            continue;
        if (inRun && s0 <= runEnd) {
            runEnd = std::max(runEnd, s1);
        } else {
            if (inRun)
                total += runEnd - runStart;
            runStart = s0;
            runEnd = s1;
            inRun = true;
        }
    }
    if (inRun)
        total += runEnd - runStart;
    return total;
}

} // namespace

RangeSummary RangeSummary::compute(const model::Session& session, int64_t startNs, int64_t endNs) {
    RangeSummary summary;
    summary.startNs = std::min(startNs, endNs);
    summary.endNs = std::max(startNs, endNs);
    const int64_t start = summary.startNs;
    const int64_t end = summary.endNs;
    const double duration = std::max<double>(1.0, static_cast<double>(end - start));

    for (const model::HostLane& host : session.hostLanes) {
        summary.apiCalls += static_cast<int64_t>(overlapping(host.apiCalls, start, end));
        for (const model::RangeColumns& depth : host.rangesByDepth)
            summary.ranges += static_cast<int64_t>(overlapping(depth, start, end));
        const model::SyncColumns& syncs = host.syncs;
        const size_t last = syncs.firstStartingAtOrAfter(end);
        for (size_t i = syncs.firstEndingAfter(start); i < last; ++i) {
            const int64_t s0 = std::max(syncs.start[i], start);
            const int64_t s1 = std::min(syncs.end[i], end);
            if (s1 <= s0 && syncs.end[i] > syncs.start[i])
                continue;
            const int kind = syncs.kind[i];
            if (kind >= 0 && kind <= format::kSyncKindMax)
                ++summary.syncsByKind[kind];
            if (model::isHostBlocking(kind)) {
                ++summary.hostSyncs;
                summary.blockedNs += std::max<int64_t>(0, s1 - s0);
            }
        }
    }
    std::vector<int32_t> devices;
    for (size_t d = 0; d < session.devices.size(); ++d)
        devices.push_back(static_cast<int32_t>(d));
    devices.push_back(-1); // streams without a device
    double shareSum = 0;
    for (int32_t device : devices) {
        const std::vector<int32_t> lanes = GpuBusyTrack::streamLanesOf(session, device);
        if (lanes.empty())
            continue;
        std::vector<const model::IntervalColumns*> sources;
        for (int32_t lane : lanes) {
            const model::StreamLane& stream = session.streamLanes[lane];
            summary.kernels += static_cast<int64_t>(overlapping(stream.kernels, start, end));
            summary.memcpys += static_cast<int64_t>(overlapping(stream.memcpys, start, end));
            summary.memsets += static_cast<int64_t>(overlapping(stream.memsets, start, end));
            sources.insert(sources.end(), {&stream.kernels, &stream.memcpys, &stream.memsets});
        }
        Device entry;
        entry.label = device >= 0
                          ? QStringLiteral("GPU %1").arg(session.devices[device].deviceIndex)
                          : QStringLiteral("GPU ?");
        entry.busyNs = unionInside(sources, start, end);
        entry.busyShare = static_cast<double>(entry.busyNs) / duration;
        shareSum += entry.busyShare;
        summary.devices.push_back(entry);
    }
    if (!summary.devices.empty())
        summary.gpuBusyShare = shareSum / static_cast<double>(summary.devices.size());
    return summary;
}

} // namespace stallscope::views
