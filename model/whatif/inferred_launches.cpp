#include "model/whatif/inferred_launches.h"

#include <algorithm>

namespace stallscope::model::whatif {

void InferredLaunches::build(const Session& session, std::span<const int32_t> processOfLane,
                             std::span<const HostThreadSteps> threads) {
    m_processes.assign(session.processes.size(), PerProcess{});
    m_any = false;
    const std::vector<bool> withCalls = session.processesWithApiCalls();
    for (size_t p = 0; p < m_processes.size(); ++p)
        m_processes[p].infer = !withCalls[p];
    for (size_t l = 0; l < session.hostLanes.size(); ++l) {
        const int32_t p = processOfLane[l];
        if (p < 0 || !m_processes[p].infer)
            continue;
        const SyncColumns& syncs = session.hostLanes[l].syncs;
        const HostThreadSteps& thread = threads[l];
        for (size_t s = 0; s < syncs.size(); ++s) {
            const uint32_t local = thread.stepOfSync[s];
            m_processes[p].syncs.push_back(
                {syncs.correlationId[s], thread.firstStep + local,
                 local + 1 < thread.steps.size() ? thread.firstStep + local + 1 : kNone,
                 syncs.start[s], syncs.end[s]});
        }
    }
    for (PerProcess& process : m_processes) {
        std::sort(process.syncs.begin(), process.syncs.end(),
                  [](const Sync& a, const Sync& b) { return a.correlationId < b.correlationId; });
        process.infer = process.infer && !process.syncs.empty();
        m_any = m_any || process.infer;
    }
}

std::optional<InferredLaunches::Launch> InferredLaunches::find(int32_t process,
                                                               uint32_t correlationId) const {
    if (!infers(process))
        return std::nullopt;
    const std::vector<Sync>& syncs = m_processes[process].syncs;
    auto after =
        std::upper_bound(syncs.begin(), syncs.end(), correlationId,
                         [](uint32_t id, const Sync& sync) { return id < sync.correlationId; });
    if (after == syncs.begin())
        return std::nullopt; // launched before the process's first recorded sync
    const Sync& last = *(after - 1);
    if (last.correlationId == correlationId)
        return Launch{last.step, last.start}; // the sync's own copy or memset
    if (last.nextStep == kNone)
        return Launch{last.step, last.start};
    return Launch{last.nextStep, last.end};
}

} // namespace stallscope::model::whatif
