// CollectiveMatch: the collectives of a multi-rank session matched across ranks. A collective is
// an NCCL kernel (model/session/collective_names.h: ncclDevKernel_AllReduce_…, ncclKernel_…,
// mangled or not); the k-th collective of one kernel name on each rank is one collective of the run
// (the ranks of a communicator issue the same sequence). A rank's *arrival* at a collective is
// when its kernel could start on its GPU: the kernel's recorded start, which is after its launch
// call, after the previous work of its stream and after any event it waits for — the moment the
// rank was ready. The kernels of a collective end together (when the last rank has arrived and
// the data has moved), so the rank that arrived first spent the longest inside its kernel.
#pragma once

#include "model/analysis/session_ranks.h"
#include "model/session/session.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace stallscope::model {

struct CollectiveArrival {
    int32_t streamLane = -1; // Session::streamLanes index
    uint32_t kernel = 0;     // index in the lane's kernels
    int64_t arrivalNs = 0;   // the kernel's start
    int64_t endNs = 0;
};

struct MatchedCollective {
    uint32_t nameId = 0;
    std::vector<CollectiveArrival> ranks; // parallel to CollectiveMatch::ranks()
};

class CollectiveMatch {
public:
    // The collectives whose kernels all start inside [windowStartNs, windowEndNs], in the order of
    // their first rank's arrival. Nothing when the session has fewer than two ranks with
    // collectives.
    void build(const Session& session, int64_t windowStartNs, int64_t windowEndNs);

    // The ranks that run collectives (a subset of sessionRanks, same order).
    const std::vector<RankInfo>& ranks() const { return m_ranks; }
    const std::vector<MatchedCollective>& collectives() const { return m_collectives; }

private:
    std::vector<RankInfo> m_ranks;
    std::vector<MatchedCollective> m_collectives;
};

} // namespace stallscope::model
