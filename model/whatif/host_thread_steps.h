// A host thread as the run graph replays it: its steps (API calls and sync records) in order and
// where its syncs lie among them. Apart from run_graph.h so that the graph's parts built before it
// (InferredLaunches) need not see the graph.
#pragma once

#include <cstdint>
#include <vector>

namespace stallscope::model::whatif {

inline constexpr uint32_t kNone = UINT32_MAX;

struct HostThreadSteps {
    // Step: the index of an API call of the lane, or kSyncStep | the index of a sync record.
    std::vector<uint32_t> steps;
    // Per sync record of the lane: the (lane-local) step that contains it.
    std::vector<uint32_t> stepOfSync;
    // Per sync record: its awaited operations are awaited[awaitedBegin[i] .. [i + 1]).
    std::vector<uint32_t> awaitedBegin;
    uint32_t firstStep = 0;  // global id of steps[0]
    int64_t medianGapNs = 0; // CPU time between two consecutive steps, the median
};

} // namespace stallscope::model::whatif
