// Per-name statistics of kernels and API calls computed from the session's columns (one linear
// pass, indexed by string id), and the events of a set of names as spans — shared by the tables
// and the find box. A views-side helper: model/ has top kernels only, not every name.
#pragma once

#include "model/analysis/insight.h"
#include "model/session/session.h"

#include <cstdint>
#include <vector>

namespace stallscope::views {

struct NameStats {
    uint32_t nameId = 0;
    int64_t count = 0;
    int64_t totalNs = 0;
    int64_t maxNs = 0;
    // One occurrence (the first in lane order), e.g. to read a kernel's launch grid.
    int32_t firstLane = -1;
    uint32_t firstIndex = 0;

    int64_t averageNs() const { return count ? totalNs / count : 0; }
};

// Names in decreasing total time.
std::vector<NameStats> kernelStatsByName(const model::Session& session);
std::vector<NameStats> apiCallStatsByName(const model::Session& session);

// The events of `column` (Kernel or ApiCall) whose name id has matches[nameId] set, as runs of
// consecutive indexes per lane.
model::EventSpans spansWithNames(const model::Session& session, model::EventKind kind,
                                 const std::vector<bool>& matches);
// The same for one name.
model::EventSpans spansWithName(const model::Session& session, model::EventKind kind,
                                uint32_t nameId);
// [earliest start, latest end] of the spans' events; {0, 0} when empty.
std::pair<int64_t, int64_t> spanExtent(const model::Session& session,
                                       const model::EventSpans& spans);

} // namespace stallscope::views
