// The recording's own rate of device-to-host copies into pinned memory, which the replay gives the
// copies a fix makes pinned (Latencies::pinnedBytesPerSecond).
#pragma once

#include "format/session_enums.h"
#include "model/session/session.h"
#include "model/whatif/median_sample.h"

#include <cstdint>

namespace stallscope::model::whatif {

// Bytes per second: the median over the session's pinned device-to-host copies of at least
// 1 MiB (smaller ones measure their latency, not the bus); `fallback` when it has none.
inline double pinnedDeviceToHostRate(const Session& session, double fallback) {
    MedianSample rate;
    for (const StreamLane& lane : session.streamLanes)
        for (size_t i = 0; i < lane.memcpys.size(); ++i)
            if (lane.memcpys.copyKind[i] == static_cast<uint8_t>(format::CopyKind::DtoH) &&
                lane.memcpys.dstKind[i] == static_cast<uint8_t>(format::MemoryKind::Pinned) &&
                lane.memcpys.bytes[i] >= (1u << 20) && lane.memcpys.duration(i) > 0)
                rate.add(static_cast<int64_t>(static_cast<double>(lane.memcpys.bytes[i]) * 1e9 /
                                              lane.memcpys.duration(i)));
    return static_cast<double>(rate.medianOr(static_cast<int64_t>(fallback)));
}

} // namespace stallscope::model::whatif
