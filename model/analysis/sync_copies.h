// The copies that blocking copy syncs made (a cudaMemcpy, a pageable .to("cuda")), joined to the
// sync by the process and CUPTI's correlation id, which the sync record and the memcpy record
// share. Joined once per analysis (SyncSites::syncCopies); sites are looked up where used, after
// SyncSites has joined some of them.
#pragma once

#include "format/session_enums.h"
#include "model/analysis/gpu_activity.h"
#include "model/session/session.h"

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace stallscope::model {

// A device->host copy of at most this many bytes reads a value (a loss, a norm, a flag), not a
// buffer: pinning it saves nothing, reading it later or less often does.
inline constexpr uint64_t kValueReadBytes = 64;

// Whether memcpy `index` of a stream lane's copies reads a value to the host (device->host, at
// most kValueReadBytes).
inline bool readsValue(const TransferColumns& memcpys, size_t index) {
    return memcpys.copyKind[index] == static_cast<uint8_t>(format::CopyKind::DtoH) &&
           memcpys.bytes[index] <= kValueReadBytes;
}

// A copy sync (PageableCopy, BlockingCopy) at hostLanes[syncLane].syncs[syncIndex] and the memcpy
// it made, streamLanes[copyLane].memcpys[copyIndex].
struct SyncCopy {
    int32_t syncLane = -1;
    uint32_t syncIndex = 0;
    int32_t copyLane = -1;
    uint32_t copyIndex = 0;
};

// Every copy sync's memcpy, in stream lane and memcpy order.
std::vector<SyncCopy> joinSyncCopies(const Session& session, const GpuActivity& gpu);

// The site (or -1) of the sync at (host lane, index).
using SiteOfSync = std::function<int32_t(int32_t lane, size_t index)>;

// Whether each of `siteCount` sites made copies and every one of them read a value to the host
// (device->host, at most kValueReadBytes).
std::vector<bool> sitesReadingValues(const Session& session, std::span<const SyncCopy> copies,
                                     const SiteOfSync& siteOf, size_t siteCount);

} // namespace stallscope::model
