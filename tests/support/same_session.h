// Whether two loaded sessions hold the same events: every lane's every column, and what the loader
// derives from them (bounds, counts, samples, the warning). For the loader's two ways of reading
// the event tables (LoadOptions::readPages), in a test and in the fuzz targets (header-only test
// support).
#pragma once

#include "model/session/session.h"

namespace stallscope::testing {

template <typename Columns> bool sameColumns(const Columns& a, const Columns& b) {
    return a.start == b.start && a.end == b.end && a.rowId == b.rowId &&
           a.maxDuration == b.maxDuration && Columns::kindColumns(a) == Columns::kindColumns(b);
}

inline bool sameEvents(const model::Session& a, const model::Session& b) {
    if (a.hostLanes.size() != b.hostLanes.size() || a.streamLanes.size() != b.streamLanes.size() ||
        a.startNs != b.startNs || a.endNs != b.endNs || a.untimedEvents != b.untimedEvents ||
        a.warning != b.warning || a.hostSamples != b.hostSamples ||
        a.counts.total() != b.counts.total())
        return false;
    for (size_t i = 0; i < a.hostLanes.size(); ++i) {
        const model::HostLane& x = a.hostLanes[i];
        const model::HostLane& y = b.hostLanes[i];
        if (!sameColumns(x.apiCalls, y.apiCalls) || !sameColumns(x.syncs, y.syncs) ||
            !sameColumns(x.samples, y.samples) || x.rangesByDepth.size() != y.rangesByDepth.size())
            return false;
        for (size_t d = 0; d < x.rangesByDepth.size(); ++d)
            if (!sameColumns(x.rangesByDepth[d], y.rangesByDepth[d]))
                return false;
    }
    for (size_t i = 0; i < a.streamLanes.size(); ++i) {
        const model::StreamLane& x = a.streamLanes[i];
        const model::StreamLane& y = b.streamLanes[i];
        if (!sameColumns(x.kernels, y.kernels) || !sameColumns(x.memcpys, y.memcpys) ||
            !sameColumns(x.memsets, y.memsets))
            return false;
    }
    return true;
}

} // namespace stallscope::testing
