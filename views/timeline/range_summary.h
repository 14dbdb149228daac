// RangeSummary: what happened in a time range the user dragged out on the ruler — GPU busy share
// per device (the union of kernels, copies and memsets over its streams, clipped to the range),
// host time blocked in syncs, and event counts per kind. Computed once per selection (a k-way
// walk over the GPU events inside the range), never per paint.
#pragma once

#include "format/session_schema.h"

#include <QString>

#include <array>
#include <cstdint>
#include <vector>

namespace stallscope::model {
class Session;
}

namespace stallscope::views {

struct RangeSummary {
    struct Device {
        QString label;
        int64_t busyNs = 0;
        double busyShare = 0; // busyNs / range duration
    };

    int64_t startNs = 0;
    int64_t endNs = 0;
    std::vector<Device> devices; // devices with at least one stream
    double gpuBusyShare = 0;     // mean over `devices`
    int64_t blockedNs = 0;       // host-blocking syncs, clipped to the range, summed over threads
    int64_t hostSyncs = 0;       // host-blocking syncs overlapping the range
    std::array<int64_t, format::kSyncKindMax + 1> syncsByKind{}; // index = format::SyncKind
    int64_t apiCalls = 0;
    int64_t kernels = 0;
    int64_t memcpys = 0;
    int64_t memsets = 0;
    int64_t ranges = 0;

    int64_t durationNs() const { return endNs - startNs; }
    static RangeSummary compute(const model::Session& session, int64_t startNs, int64_t endNs);
};

} // namespace stallscope::views
