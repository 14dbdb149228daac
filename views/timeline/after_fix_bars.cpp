#include "views/timeline/after_fix_bars.h"

#include "model/session/session.h"
#include "views/timeline/lod_merge.h"

#include <algorithm>
#include <cmath>

namespace stallscope::views {

namespace {

using model::whatif::RunGraph;

// The ghosts of one stream lane. A stream runs its operations one after the other, in the replay
// too, so replayed starts and ends ascend with the operation index.
void addLane(const AfterFix& fix, int32_t lane, uint32_t row, const TimelineViewport& viewport,
             std::vector<GhostBlock>& out) {
    const RunGraph::Stream& stream = fix.graph->streams()[lane];
    const model::whatif::ReplayResult& replay = *fix.replay;
    const size_t n = stream.ops.size();
    auto startOf = [&](size_t k) { return AfterFixBars::replayed(fix, lane, uint32_t(k)).first; };
    auto endOf = [&](size_t k) { return AfterFixBars::replayed(fix, lane, uint32_t(k)).second; };
    auto moved = [&](size_t k) {
        return replay.opStartShift[stream.firstOp + k] != 0 ||
               replay.opEndShift[stream.firstOp + k] != 0;
    };
    const int64_t t0 = viewport.visibleStartNs();
    const int64_t t1 = viewport.visibleEndNs();
    size_t low = 0, high = n; // the first operation ending after t0
    while (low < high) {
        const size_t middle = low + (high - low) / 2;
        if (endOf(middle) <= t0)
            low = middle + 1;
        else
            high = middle;
    }
    for (size_t k = low; k < n && startOf(k) < t1;) {
        const double x0 = viewport.xForTime(startOf(k));
        double x1 = viewport.xForTime(endOf(k));
        size_t next = k + 1;
        if (x1 - x0 < 1.0) { // sub-pixel: what starts in the same pixel column merges into it
            const int64_t boundary = viewport.timeForX(std::floor(x0) + 1.0);
            next = detail::gallopBy(k + 1, n, std::max(boundary, startOf(k) + 1), startOf);
            x1 = std::max(x1, viewport.xForTime(endOf(next - 1)));
        }
        if (moved(k) || moved(next - 1)) {
            GhostBlock block;
            block.x0 = static_cast<float>(std::max(x0, -1.0));
            block.x1 = static_cast<float>(std::min(std::max(x1, x0 + 1.0), viewport.width() + 1.0));
            block.x1 = std::max(block.x1, block.x0 + 1.0f);
            block.lane = row;
            block.firstOp = static_cast<uint32_t>(k);
            block.count = static_cast<uint32_t>(next - k);
            out.push_back(block);
        }
        k = next;
    }
}

} // namespace

bool AfterFix::isValid() const {
    return graph && replay && replay->opStartShift.size() == graph->opCount() &&
           replay->opEndShift.size() == graph->opCount();
}

std::pair<int64_t, int64_t> AfterFixBars::replayed(const AfterFix& fix, int32_t lane, uint32_t op) {
    const uint32_t global = fix.graph->streams()[lane].firstOp + op;
    return {fix.graph->opStart(lane, op) + fix.replay->opStartShift[global],
            fix.graph->opEnd(lane, op) + fix.replay->opEndShift[global]};
}

std::optional<uint32_t> AfterFixBars::operationOf(const RunGraph& graph,
                                                  const model::EventRef& event) {
    RunGraph::OpKind kind;
    switch (event.kind) {
    case model::EventKind::Kernel:
        kind = RunGraph::OpKind::Kernel;
        break;
    case model::EventKind::Memcpy:
        kind = RunGraph::OpKind::Memcpy;
        break;
    case model::EventKind::Memset:
        kind = RunGraph::OpKind::Memset;
        break;
    default:
        return std::nullopt;
    }
    if (event.lane < 0 || static_cast<size_t>(event.lane) >= graph.streams().size() ||
        !event.isIn(graph.session()))
        return std::nullopt;
    // Operations are in recorded start order: search the start, then the event among equals.
    const std::vector<uint32_t>& ops = graph.streams()[event.lane].ops;
    const int64_t start = event.start(graph.session());
    const uint32_t code = static_cast<uint32_t>(kind) << 30 | event.index;
    size_t k = detail::gallopBy(0, ops.size(), start, [&](size_t i) {
        return graph.opStart(event.lane, static_cast<uint32_t>(i));
    });
    for (; k < ops.size() && graph.opStart(event.lane, static_cast<uint32_t>(k)) == start; ++k)
        if (ops[k] == code)
            return static_cast<uint32_t>(k);
    return std::nullopt;
}

std::vector<GhostBlock> AfterFixBars::build(const AfterFix& fix, const TimelineLayout& layout,
                                            const TimelineViewport& viewport) {
    std::vector<GhostBlock> ghosts;
    if (!fix.isValid())
        return ghosts;
    const auto& lanes = layout.lanes();
    for (size_t row = 0; row < lanes.size(); ++row)
        if (lanes[row].kind == LaneKind::Stream && lanes[row].source >= 0 &&
            static_cast<size_t>(lanes[row].source) < fix.graph->streams().size())
            addLane(fix, lanes[row].source, static_cast<uint32_t>(row), viewport, ghosts);
    return ghosts;
}

} // namespace stallscope::views
