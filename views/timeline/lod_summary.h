// Summaries of a column for low zoom: per group of kGroup consecutive events, the summed durations
// before it and its latest end. A merged run of many events then reads its two partial groups and
// the group entries between them, not every event: at full zoom-out of a run each pixel holds
// dozens of a lane's events, and streaming their starts and ends through the cache was most of a
// draw-list build.
#pragma once

#include "model/session/event_columns.h"

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace stallscope::views {

struct ColumnSummary {
    static constexpr size_t kGroup = 16;
    std::vector<int64_t> coveredBefore; // [g]: summed durations of events [0, g·kGroup); groups + 1
    std::vector<int64_t> groupEnd;      // [g]: the latest end in group g

    static ColumnSummary of(const model::IntervalColumns& columns);
    // Summed durations of events [first, last), first and last multiples of kGroup (or the end).
    int64_t coveredBetweenGroups(size_t firstGroup, size_t lastGroup) const {
        return coveredBefore[lastGroup] - coveredBefore[firstGroup];
    }
};

// The summaries of one session's columns, made when a build first merges a run long enough to
// use one. The session must outlive it and not change (Session is immutable once loaded); a new
// session needs a new cache.
class LodSummaries {
public:
    const ColumnSummary& of(const model::IntervalColumns& columns);
    void clear() { m_summaries.clear(); }

private:
    std::unordered_map<const model::IntervalColumns*, ColumnSummary> m_summaries;
};

} // namespace stallscope::views
