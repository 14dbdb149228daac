// The copies that blocking copy syncs made (a cudaMemcpy, a pageable .to("cuda")), joined to the
// sync by the process and CUPTI's correlation id, which the sync record and the memcpy record
// share.
#pragma once

#include "model/analysis/gpu_activity.h"
#include "model/session/session.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace stallscope::model {

// A device->host copy of at most this many bytes reads a value (a loss, a norm, a flag), not a
// buffer: pinning it saves nothing, reading it later or less often does.
inline constexpr uint64_t kValueReadBytes = 64;

// The site (or -1) of the sync at (host lane, index).
using SiteOfSync = std::function<int32_t(int32_t lane, size_t index)>;

// Calls visit(site, stream lane, memcpy index) for each memcpy that a copy sync (PageableCopy,
// BlockingCopy) of a site made.
void forEachSyncCopy(const Session& session, const GpuActivity& gpu, const SiteOfSync& siteOf,
                     const std::function<void(int32_t site, int32_t lane, size_t index)>& visit);

// Whether each of `siteCount` sites made copies and every one of them read a value to the host
// (device->host, at most kValueReadBytes).
std::vector<bool> sitesReadingValues(const Session& session, const GpuActivity& gpu,
                                     const SiteOfSync& siteOf, size_t siteCount);

} // namespace stallscope::model
