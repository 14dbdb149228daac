// IntervalMerge: walks several time-sorted IntervalColumns (e.g. the kernels, copies and memsets of
// all streams of one device) as one sequence in start order, without copying them. A k-way heap
// merge: O(log k) per event and no per-event allocation, so device-wide passes stay linear.
#pragma once

#include "model/analysis/insight.h"
#include "model/session/event_columns.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace stallscope::model {

struct MergeSource {
    const IntervalColumns* columns = nullptr;
    int32_t lane = -1;                  // stream lane (or host lane) index
    EventKind kind = EventKind::Kernel; // which column of the lane
};

class IntervalMerge {
public:
    explicit IntervalMerge(std::vector<MergeSource> sources);

    // Moves to the next event in start order (ties: lower source first); false at the end.
    bool next();

    size_t sourceIndex() const { return m_current; }
    const MergeSource& source() const { return m_sources[m_current]; }
    uint32_t index() const { return m_index; }
    int64_t start() const { return m_sources[m_current].columns->start[m_index]; }
    int64_t end() const { return m_sources[m_current].columns->end[m_index]; }
    int64_t duration() const { return end() - start(); }
    const std::vector<MergeSource>& sources() const { return m_sources; }

private:
    // Few sources (the usual 3 columns × a few streams): a linear scan of the cached head starts
    // beats a heap; many sources: a binary min-heap.
    static constexpr size_t kLinearScanMax = 16;
    void push(uint32_t source);
    int64_t headStart(uint32_t source) const;

    std::vector<MergeSource> m_sources;
    std::vector<uint32_t> m_cursor;                   // next unread index per source
    std::vector<int64_t> m_heads;                     // linear scan: head start, INT64_MAX at end
    std::vector<std::pair<int64_t, uint32_t>> m_heap; // heap: (start, source)
    bool m_linear = true;
    size_t m_current = 0;
    uint32_t m_index = 0;
};

// The union of a merged sequence as disjoint, sorted intervals (touching ones joined).
struct BusyIntervals {
    std::vector<int64_t> start;
    std::vector<int64_t> end;
    int64_t totalNs = 0;

    void add(int64_t s, int64_t e); // s must not precede the previous add's start
    bool empty() const { return start.empty(); }
    size_t size() const { return start.size(); }
    // True when some interval has start <= t < end.
    bool busyAt(int64_t t) const;
    // Index of the last interval starting at or before t, or -1; `hint` (a previous answer for an
    // earlier t, or -1) makes ascending queries gallop forward instead of searching it all.
    int64_t lastStartingAtOrBefore(int64_t t, int64_t hint = -1) const;
    // Start of the first interval starting at or after t; INT64_MAX when none.
    int64_t nextStartAtOrAfter(int64_t t) const;
    // True when some interval overlaps [a, b) (a < b).
    bool overlaps(int64_t a, int64_t b) const;
    // End of the latest interval ending at or before t; INT64_MIN when none.
    int64_t lastEndAtOrBefore(int64_t t) const;
    size_t memoryBytes() const { return start.capacity() * 8 + end.capacity() * 8; }
};

} // namespace stallscope::model
