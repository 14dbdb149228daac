// Which host steps make one CUDA graph (WhatIf::graphedSteps) for a set of operations: the
// launch-bound rule's stretches.
#include "model/whatif/replay.h"

#include <algorithm>

namespace stallscope::model::whatif {

std::vector<StepRange> graphedStepRanges(const RunGraph& graph, std::span<const uint32_t> ops) {
    std::vector<uint32_t> steps;
    for (uint32_t op : ops)
        if (op < graph.opCount() && graph.launchStep(op) != kNone)
            steps.push_back(graph.launchStep(op));
    std::sort(steps.begin(), steps.end());
    steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
    // Whether a step of `lane` after lane-local step `after`, up to `upTo`, holds a host-blocking
    // sync (stepOfSync grows with the sync index).
    auto blockedBetween = [&graph](int32_t lane, uint32_t after, uint32_t upTo) {
        const RunGraph::HostThread& thread = graph.threads()[lane];
        const SyncColumns& syncs = graph.session().hostLanes[lane].syncs;
        auto s = static_cast<size_t>(
            std::upper_bound(thread.stepOfSync.begin(), thread.stepOfSync.end(), after) -
            thread.stepOfSync.begin());
        for (; s < syncs.size() && thread.stepOfSync[s] <= upTo; ++s)
            if (isHostBlocking(syncs.kind[s]))
                return true;
        return false;
    };
    std::vector<StepRange> ranges;
    int32_t previousLane = -1;
    uint32_t previousLocal = 0;
    for (uint32_t step : steps) {
        const auto [lane, local] = graph.locateStep(step);
        if (lane == previousLane && !blockedBetween(lane, previousLocal, local))
            ranges.back().last = step;
        else
            ranges.push_back({step, step});
        previousLane = lane;
        previousLocal = local;
    }
    std::erase_if(ranges, [](const StepRange& range) { return range.first == range.last; });
    return ranges;
}

} // namespace stallscope::model::whatif
