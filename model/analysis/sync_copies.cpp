#include "model/analysis/sync_copies.h"

#include <unordered_map>

namespace stallscope::model {

std::vector<SyncCopy> joinSyncCopies(const Session& session, const GpuActivity& gpu) {
    auto key = [](int64_t process, uint32_t correlation) {
        return (static_cast<uint64_t>(process + 1) << 32) | correlation;
    };
    std::unordered_map<uint64_t, EventRef> syncByCopy;
    for (size_t l = 0; l < session.hostLanes.size(); ++l) {
        const HostLane& lane = session.hostLanes[l];
        const int64_t process = gpu.processOfThread(lane.threadIndex);
        for (size_t i = 0; i < lane.syncs.size(); ++i) {
            const auto kind = static_cast<format::SyncKind>(lane.syncs.kind[i]);
            if (kind == format::SyncKind::PageableCopy || kind == format::SyncKind::BlockingCopy)
                syncByCopy.emplace(
                    key(process, lane.syncs.correlationId[i]),
                    EventRef::sync(static_cast<int32_t>(l), static_cast<uint32_t>(i)));
        }
    }
    std::vector<SyncCopy> copies;
    if (syncByCopy.empty())
        return copies;
    for (size_t l = 0; l < session.streamLanes.size(); ++l) {
        const StreamLane& lane = session.streamLanes[l];
        const int32_t device = session.streams[lane.streamIndex].deviceIndex;
        const int64_t process = device < 0 ? -1 : session.devices[device].processIndex;
        for (size_t i = 0; i < lane.memcpys.size(); ++i) {
            const auto found = syncByCopy.find(key(process, lane.memcpys.correlationId[i]));
            if (found != syncByCopy.end())
                copies.push_back({found->second.lane, found->second.index, static_cast<int32_t>(l),
                                  static_cast<uint32_t>(i)});
        }
    }
    return copies;
}

std::vector<bool> sitesReadingValues(const Session& session, std::span<const SyncCopy> copies,
                                     const SiteOfSync& siteOf, size_t siteCount) {
    std::vector<bool> copied(siteCount, false), otherCopies(siteCount, false);
    for (const SyncCopy& copy : copies) {
        const int32_t site = siteOf(copy.syncLane, copy.syncIndex);
        if (site < 0)
            continue;
        const TransferColumns& memcpys = session.streamLanes[copy.copyLane].memcpys;
        copied[site] = true;
        if (!readsValue(memcpys, copy.copyIndex))
            otherCopies[site] = true;
    }
    for (size_t s = 0; s < siteCount; ++s)
        copied[s] = copied[s] && !otherCopies[s];
    return copied;
}

} // namespace stallscope::model
