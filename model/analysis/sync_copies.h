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

// The join key of a copy sync and its memcpy.
inline uint64_t syncCopyKey(int64_t process, uint32_t correlation) {
    return (static_cast<uint64_t>(process + 1) << 32) | correlation;
}

// Whether each of `siteCount` sites (siteOf(lane, sync index): a site or -1) made copies and
// every one of them read a value to the host (device->host, at most kValueReadBytes).
std::vector<bool> sitesReadingValues(const Session& session, const GpuActivity& gpu,
                                     const std::function<int32_t(int32_t, size_t)>& siteOf,
                                     size_t siteCount);

} // namespace stallscope::model
