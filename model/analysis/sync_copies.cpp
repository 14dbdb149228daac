#include "model/analysis/sync_copies.h"

#include "format/session_enums.h"

#include <unordered_map>

namespace stallscope::model {

std::vector<bool> sitesReadingValues(const Session& session, const GpuActivity& gpu,
                                     const std::function<int32_t(int32_t, size_t)>& siteOf,
                                     size_t siteCount) {
    std::unordered_map<uint64_t, int32_t> siteByCopy;
    for (size_t l = 0; l < session.hostLanes.size(); ++l) {
        const HostLane& lane = session.hostLanes[l];
        const int64_t process = gpu.processOfThread(lane.threadIndex);
        for (size_t i = 0; i < lane.syncs.size(); ++i) {
            const auto kind = static_cast<format::SyncKind>(lane.syncs.kind[i]);
            const int32_t site = siteOf(static_cast<int32_t>(l), i);
            if (site >= 0 &&
                (kind == format::SyncKind::PageableCopy || kind == format::SyncKind::BlockingCopy))
                siteByCopy.emplace(syncCopyKey(process, lane.syncs.correlationId[i]), site);
        }
    }
    std::vector<bool> copied(siteCount, false), otherCopies(siteCount, false);
    if (siteByCopy.empty())
        return copied;
    for (const StreamLane& lane : session.streamLanes) {
        const int32_t device = session.streams[lane.streamIndex].deviceIndex;
        const int64_t process = device < 0 ? -1 : session.devices[device].processIndex;
        const TransferColumns& memcpys = lane.memcpys;
        for (size_t i = 0; i < memcpys.size(); ++i) {
            const auto found = siteByCopy.find(syncCopyKey(process, memcpys.correlationId[i]));
            if (found == siteByCopy.end())
                continue;
            const bool value =
                memcpys.copyKind[i] == static_cast<uint8_t>(format::CopyKind::DtoH) &&
                memcpys.bytes[i] <= kValueReadBytes;
            copied[found->second] = true;
            if (!value)
                otherCopies[found->second] = true;
        }
    }
    for (size_t s = 0; s < siteCount; ++s)
        copied[s] = copied[s] && !otherCopies[s];
    return copied;
}

} // namespace stallscope::model
