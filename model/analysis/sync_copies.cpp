#include "model/analysis/sync_copies.h"

#include "format/session_enums.h"

#include <unordered_map>

namespace stallscope::model {

void forEachSyncCopy(const Session& session, const GpuActivity& gpu, const SiteOfSync& siteOf,
                     const std::function<void(int32_t site, int32_t lane, size_t index)>& visit) {
    auto key = [](int64_t process, uint32_t correlation) {
        return (static_cast<uint64_t>(process + 1) << 32) | correlation;
    };
    std::unordered_map<uint64_t, int32_t> siteByCopy;
    for (size_t l = 0; l < session.hostLanes.size(); ++l) {
        const HostLane& lane = session.hostLanes[l];
        const int64_t process = gpu.processOfThread(lane.threadIndex);
        for (size_t i = 0; i < lane.syncs.size(); ++i) {
            const auto kind = static_cast<format::SyncKind>(lane.syncs.kind[i]);
            const int32_t site = siteOf(static_cast<int32_t>(l), i);
            if (site >= 0 &&
                (kind == format::SyncKind::PageableCopy || kind == format::SyncKind::BlockingCopy))
                siteByCopy.emplace(key(process, lane.syncs.correlationId[i]), site);
        }
    }
    if (siteByCopy.empty())
        return;
    for (size_t l = 0; l < session.streamLanes.size(); ++l) {
        const StreamLane& lane = session.streamLanes[l];
        const int32_t device = session.streams[lane.streamIndex].deviceIndex;
        const int64_t process = device < 0 ? -1 : session.devices[device].processIndex;
        for (size_t i = 0; i < lane.memcpys.size(); ++i) {
            const auto found = siteByCopy.find(key(process, lane.memcpys.correlationId[i]));
            if (found != siteByCopy.end())
                visit(found->second, static_cast<int32_t>(l), i);
        }
    }
}

std::vector<bool> sitesReadingValues(const Session& session, const GpuActivity& gpu,
                                     const SiteOfSync& siteOf, size_t siteCount) {
    std::vector<bool> copied(siteCount, false), otherCopies(siteCount, false);
    forEachSyncCopy(session, gpu, siteOf, [&](int32_t site, int32_t lane, size_t index) {
        const TransferColumns& memcpys = session.streamLanes[lane].memcpys;
        copied[site] = true;
        if (memcpys.copyKind[index] != static_cast<uint8_t>(format::CopyKind::DtoH) ||
            memcpys.bytes[index] > kValueReadBytes)
            otherCopies[site] = true;
    });
    for (size_t s = 0; s < siteCount; ++s)
        copied[s] = copied[s] && !otherCopies[s];
    return copied;
}

} // namespace stallscope::model
