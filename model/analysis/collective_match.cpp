#include "model/analysis/collective_match.h"

#include "model/session/collective_names.h"

#include <algorithm>
#include <map>

namespace stallscope::model {

void CollectiveMatch::build(const Session& session, int64_t windowStartNs, int64_t windowEndNs) {
    m_ranks.clear();
    m_collectives.clear();
    const std::vector<RankInfo> all = sessionRanks(session);
    if (all.empty())
        return;
    const std::vector<int32_t> slotOf = rankSlots(session, all);
    std::vector<bool> collectiveName(session.strings.size(), false);
    for (size_t s = 0; s < session.strings.size(); ++s)
        collectiveName[s] = isCollectiveKernelName(session.strings[s]);

    // Per rank, per kernel name: its collective kernels in start order.
    using Sequence = std::vector<CollectiveArrival>;
    std::vector<std::map<uint32_t, Sequence>> byRank(all.size());
    for (size_t l = 0; l < session.streamLanes.size(); ++l) {
        const StreamLane& lane = session.streamLanes[l];
        const int32_t device = session.streams[lane.streamIndex].deviceIndex;
        const int32_t process = device < 0 ? -1 : session.devices[device].processIndex;
        const int32_t slot = process < 0 ? -1 : slotOf[process];
        if (slot < 0)
            continue;
        const KernelColumns& kernels = lane.kernels;
        for (size_t k = 0; k < kernels.size(); ++k)
            if (kernels.nameId[k] < collectiveName.size() && collectiveName[kernels.nameId[k]])
                byRank[slot][kernels.nameId[k]].push_back({static_cast<int32_t>(l),
                                                           static_cast<uint32_t>(k),
                                                           kernels.start[k], kernels.end[k]});
    }
    std::vector<size_t> kept;
    for (size_t r = 0; r < all.size(); ++r)
        if (!byRank[r].empty())
            kept.push_back(r);
    if (kept.size() < 2)
        return;
    for (size_t r : kept)
        m_ranks.push_back(all[r]);

    // The names every kept rank runs; the k-th of a name on each rank is one collective.
    for (auto& [name, first] : byRank[kept.front()]) {
        size_t count = first.size();
        for (size_t r : kept) {
            const auto found = byRank[r].find(name);
            count = found == byRank[r].end() ? 0 : std::min(count, found->second.size());
        }
        for (size_t r : kept) {
            auto found = byRank[r].find(name);
            if (found != byRank[r].end())
                std::stable_sort(found->second.begin(), found->second.end(),
                                 [](const CollectiveArrival& a, const CollectiveArrival& b) {
                                     return a.arrivalNs < b.arrivalNs;
                                 });
        }
        for (size_t k = 0; k < count; ++k) {
            MatchedCollective collective{name, {}};
            bool inside = true;
            for (size_t r : kept) {
                const CollectiveArrival& arrival = byRank[r].at(name)[k];
                inside = inside && arrival.arrivalNs >= windowStartNs &&
                         arrival.arrivalNs <= windowEndNs;
                collective.ranks.push_back(arrival);
            }
            if (inside)
                m_collectives.push_back(std::move(collective));
        }
    }
    auto firstArrival = [](const MatchedCollective& c) {
        int64_t first = c.ranks.front().arrivalNs;
        for (const CollectiveArrival& a : c.ranks)
            first = std::min(first, a.arrivalNs);
        return first;
    };
    std::stable_sort(m_collectives.begin(), m_collectives.end(),
                     [&](const MatchedCollective& a, const MatchedCollective& b) {
                         return firstArrival(a) < firstArrival(b);
                     });
}

} // namespace stallscope::model
