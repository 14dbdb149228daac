#include "model/session/sync_callers.h"

#include <tuple>
#include <unordered_map>

namespace stallscope::model {

namespace {

struct SyncAt {
    int32_t lane = -1;
    uint32_t index = 0;
    int32_t callerLane = -1; // -1: stays
};

template <typename Kind> void appendEvent(Kind& to, const Kind& from, size_t i) {
    to.pushInterval(from.start[i], from.end[i], from.rowId[i]);
    std::apply(
        [&](auto&... target) {
            std::apply([&](const auto&... source) { (target.push_back(source[i]), ...); },
                       Kind::kindColumns(from));
        },
        Kind::kindColumns(to));
}

} // namespace

int64_t moveSyncsToCallingThreads(Session& session) {
    std::vector<std::vector<int32_t>> lanesOfProcess(session.processes.size());
    for (size_t l = 0; l < session.hostLanes.size(); ++l) {
        const int32_t thread = session.hostLanes[l].threadIndex;
        const int32_t process = thread < 0 ? -1 : session.threads[thread].processIndex;
        if (process >= 0)
            lanesOfProcess[process].push_back(static_cast<int32_t>(l));
    }
    // Per lane, the indexes of its syncs that move, by target lane.
    std::vector<std::vector<SyncAt>> moves(session.hostLanes.size());
    int64_t moved = 0;
    for (const std::vector<int32_t>& lanes : lanesOfProcess) {
        // Correlation ids are unique within a process, not across processes.
        std::unordered_map<uint32_t, SyncAt> stackless;
        for (int32_t l : lanes) {
            const SyncColumns& syncs = session.hostLanes[l].syncs;
            for (size_t i = 0; i < syncs.size(); ++i)
                if (syncs.stackId[i] == 0 && syncs.correlationId[i] != 0)
                    stackless.emplace(syncs.correlationId[i],
                                      SyncAt{l, static_cast<uint32_t>(i), -1});
        }
        if (stackless.empty())
            continue;
        for (int32_t l : lanes) {
            const ApiCallColumns& api = session.hostLanes[l].apiCalls;
            for (size_t j = 0; j < api.size(); ++j) {
                const auto sync = stackless.find(api.correlationId[j]);
                if (sync != stackless.end() && sync->second.lane != l)
                    sync->second.callerLane = l;
            }
        }
        for (const auto& [correlation, sync] : stackless)
            if (sync.callerLane >= 0) {
                moves[sync.lane].push_back(sync);
                ++moved;
            }
    }
    for (size_t l = 0; l < moves.size(); ++l) {
        if (moves[l].empty())
            continue;
        SyncColumns& from = session.hostLanes[l].syncs;
        std::vector<int32_t> target(from.size(), -1);
        for (const SyncAt& sync : moves[l])
            target[sync.index] = sync.callerLane;
        SyncColumns kept;
        for (size_t i = 0; i < from.size(); ++i)
            appendEvent(target[i] < 0 ? kept : session.hostLanes[target[i]].syncs, from, i);
        from = std::move(kept);
    }
    return moved;
}

} // namespace stallscope::model
