#include "model/analysis/session_ranks.h"

#include <algorithm>

namespace stallscope::model {

std::vector<RankInfo> sessionRanks(const Session& session) {
    std::vector<bool> active(session.processes.size(), false);
    for (const HostLane& lane : session.hostLanes) {
        if (lane.threadIndex < 0 ||
            lane.threadIndex >= static_cast<int32_t>(session.threads.size()))
            continue;
        const int32_t process = session.threads[lane.threadIndex].processIndex;
        if (process >= 0 && (!lane.apiCalls.empty() || !lane.syncs.empty()))
            active[process] = true;
    }
    std::vector<RankInfo> ranks;
    for (size_t p = 0; p < session.processes.size(); ++p) {
        const ProcessInfo& process = session.processes[p];
        if (!process.rank && !active[p])
            continue;
        ranks.push_back({static_cast<int32_t>(p), process.rank ? process.rank->rank : -1,
                         session.processLabel(static_cast<int32_t>(p))});
    }
    if (ranks.size() < 2)
        return {};
    std::stable_sort(ranks.begin(), ranks.end(), [](const RankInfo& a, const RankInfo& b) {
        const bool ar = a.rank >= 0, br = b.rank >= 0;
        if (ar != br)
            return ar;
        return ar && a.rank != b.rank ? a.rank < b.rank : a.processIndex < b.processIndex;
    });
    return ranks;
}

std::vector<int32_t> rankSlots(const Session& session, const std::vector<RankInfo>& ranks) {
    std::vector<int32_t> slotOfProcess(session.processes.size(), -1);
    for (size_t r = 0; r < ranks.size(); ++r)
        slotOfProcess[ranks[r].processIndex] = static_cast<int32_t>(r);
    return slotOfProcess;
}

} // namespace stallscope::model
