#include "views/timeline/timeline_hit_test.h"

#include "model/session/session.h"

#include <cmath>
#include <limits>

namespace stallscope::views {

namespace {

// How far back from the cursor the search looks for an enclosing (nested) API call. A call that
// blocks, the usual long one, has no other call of its thread inside it, so it is found at once;
// the bound keeps a lane holding one multi-second call from turning hovering into a linear scan.
constexpr size_t kMaxBackScan = 256;

// The session lane a layout lane shows, or null when its index does not fit the session.
template <typename Lane> const Lane* laneAt(const std::vector<Lane>& lanes, int32_t source) {
    return source >= 0 && static_cast<size_t>(source) < lanes.size() ? &lanes[source] : nullptr;
}

} // namespace

size_t TimelineHitTest::nearest(const model::IntervalColumns& columns, int64_t t,
                                int64_t toleranceNs, int64_t* distanceNs) {
    const size_t n = columns.size();
    size_t best = kNone;
    int64_t bestDistance = std::numeric_limits<int64_t>::max();
    if (n == 0) {
        if (distanceNs)
            *distanceNs = bestDistance;
        return kNone;
    }
    // Events [0, i) start at or before t. Walking back from i - 1 meets the innermost event
    // containing t first; a lane without nesting needs one step.
    const size_t i = columns.firstStartingAtOrAfter(t + 1);
    const int64_t earliestUseful = t - toleranceNs - columns.maxDuration;
    for (size_t steps = 0, k = i; k > 0 && steps < kMaxBackScan; --k, ++steps) {
        const size_t j = k - 1;
        if (columns.start[j] < earliestUseful)
            break; // neither it nor anything earlier can reach t - tolerance
        const int64_t distance = columns.end[j] > t ? 0 : t - columns.end[j];
        if (distance < bestDistance) {
            best = j;
            bestDistance = distance;
            if (distance == 0)
                break;
        }
    }
    if (i < n && bestDistance > 0 && columns.start[i] - t < bestDistance) {
        best = i;
        bestDistance = columns.start[i] - t;
    }
    if (distanceNs)
        *distanceNs = bestDistance;
    return bestDistance <= toleranceNs ? best : kNone;
}

model::EventRef TimelineHitTest::at(const model::Session& session, const TimelineLane& lane,
                                    const TimelineViewport& viewport, double canvasX,
                                    double tolerancePx) {
    const int64_t t = viewport.timeForX(canvasX);
    const int64_t tolerance = std::llround(tolerancePx * viewport.nsPerPixel());
    model::EventRef best;
    int64_t bestDistance = std::numeric_limits<int64_t>::max();
    // Candidates in priority order: on a tie the earlier one stays.
    auto consider = [&](const model::IntervalColumns& columns, model::EventKind kind,
                        int32_t source, int32_t depth) {
        int64_t distance = 0;
        const size_t index = nearest(columns, t, tolerance, &distance);
        if (index != kNone && distance < bestDistance) {
            best.kind = kind;
            best.lane = source;
            best.depth = depth;
            best.index = static_cast<uint32_t>(index);
            bestDistance = distance;
        }
    };
    switch (lane.kind) {
    case LaneKind::HostThread:
        if (const model::HostLane* host = laneAt(session.hostLanes, lane.source)) {
            consider(host->syncs, model::EventKind::Sync, lane.source, 0);
            consider(host->apiCalls, model::EventKind::ApiCall, lane.source, 0);
        }
        break;
    case LaneKind::Range: {
        const model::HostLane* host = laneAt(session.hostLanes, lane.source);
        if (host && lane.depth >= 0 && static_cast<size_t>(lane.depth) < host->rangesByDepth.size())
            consider(host->rangesByDepth[lane.depth], model::EventKind::Range, lane.source,
                     lane.depth);
        break;
    }
    case LaneKind::Stream:
        if (const model::StreamLane* stream = laneAt(session.streamLanes, lane.source)) {
            consider(stream->kernels, model::EventKind::Kernel, lane.source, 0);
            consider(stream->memcpys, model::EventKind::Memcpy, lane.source, 0);
            consider(stream->memsets, model::EventKind::Memset, lane.source, 0);
        }
        break;
    default:
        break;
    }
    return best;
}

} // namespace stallscope::views
