// The ranks of a multi-process session (a merged torchrun/MPI run: one process per rank on one
// clock): the processes the cross-rank numbers are split by (docs/insights.md, "Ranks").
#pragma once

#include "model/session/session.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stallscope::model {

struct RankInfo {
    int32_t processIndex = -1; // into Session::processes
    int64_t rank = -1;         // the process_ranks row's rank, -1 when the process has none
    std::string label;         // Session::processLabel: "rank 1", "pid 4242"
};

// Every process that has a rank row or any host event, ranked ones first by rank, then the others
// by process order; empty when there are fewer than two (a single-process session). Every sync
// and kernel of the session belongs to one of them, so per-rank numbers add up to the totals.
std::vector<RankInfo> sessionRanks(const Session& session);

// Per Session::processes index: its place in `ranks`, -1 when it is none of them.
std::vector<int32_t> rankSlots(const Session& session, const std::vector<RankInfo>& ranks);

} // namespace stallscope::model
