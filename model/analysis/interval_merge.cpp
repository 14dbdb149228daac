#include "model/analysis/interval_merge.h"

#include <algorithm>
#include <functional>
#include <limits>

namespace stallscope::model {

namespace {
// std::*_heap build max-heaps; greater<> turns them into the min-heap a merge needs.
constexpr std::greater<std::pair<int64_t, uint32_t>> kMinFirst{};
} // namespace

IntervalMerge::IntervalMerge(std::vector<MergeSource> sources) : m_sources(std::move(sources)) {
    m_cursor.assign(m_sources.size(), 0);
    m_linear = m_sources.size() <= kLinearScanMax;
    if (m_linear) {
        m_heads.resize(m_sources.size());
        for (uint32_t s = 0; s < m_sources.size(); ++s)
            m_heads[s] = headStart(s);
        return;
    }
    m_heap.reserve(m_sources.size());
    for (uint32_t s = 0; s < m_sources.size(); ++s)
        push(s);
}

int64_t IntervalMerge::headStart(uint32_t source) const {
    const IntervalColumns& columns = *m_sources[source].columns;
    return m_cursor[source] < columns.size() ? columns.start[m_cursor[source]]
                                             : std::numeric_limits<int64_t>::max();
}

void IntervalMerge::push(uint32_t source) {
    const IntervalColumns& columns = *m_sources[source].columns;
    if (m_cursor[source] >= columns.size())
        return;
    m_heap.emplace_back(columns.start[m_cursor[source]], source);
    std::push_heap(m_heap.begin(), m_heap.end(), kMinFirst);
}

bool IntervalMerge::next() {
    if (m_linear) {
        uint32_t best = 0;
        int64_t bestStart = std::numeric_limits<int64_t>::max();
        for (uint32_t s = 0; s < m_heads.size(); ++s)
            if (m_heads[s] < bestStart) { // strict: ties go to the lower source
                bestStart = m_heads[s];
                best = s;
            }
        if (bestStart == std::numeric_limits<int64_t>::max()) {
            // Every source is exhausted (a real INT64_MAX start is not a time a session holds).
            return false;
        }
        m_current = best;
        m_index = m_cursor[best]++;
        m_heads[best] = headStart(best);
        return true;
    }
    if (m_heap.empty())
        return false;
    std::pop_heap(m_heap.begin(), m_heap.end(), kMinFirst);
    const uint32_t source = m_heap.back().second;
    m_heap.pop_back();
    m_current = source;
    m_index = m_cursor[source]++;
    push(source);
    return true;
}

void BusyIntervals::add(int64_t s, int64_t e) {
    if (e <= s)
        return; // zero-length records (instant markers) make nothing busy
    if (!start.empty() && s <= end.back()) {
        if (e > end.back()) {
            totalNs += e - end.back();
            end.back() = e;
        }
        return;
    }
    start.push_back(s);
    end.push_back(e);
    totalNs += e - s;
}

bool BusyIntervals::busyAt(int64_t t) const {
    const auto after = std::upper_bound(start.begin(), start.end(), t);
    if (after == start.begin())
        return false;
    return end[static_cast<size_t>(after - start.begin()) - 1] > t;
}

int64_t BusyIntervals::lastStartingAtOrBefore(int64_t t, int64_t hint) const {
    const auto n = static_cast<int64_t>(start.size());
    int64_t low = 0, high = n; // answer + 1 lies in [low, high]
    if (hint >= 0 && hint < n && start[hint] <= t) {
        // Gallop: queries from one thread ascend, so the answer is usually a few steps on.
        low = hint + 1;
        int64_t step = 1;
        while (low < n && start[low] <= t) {
            low += step;
            step *= 2;
        }
        high = std::min(low, n);
        low = std::max(hint + 1, low - step / 2);
    }
    const auto found = std::upper_bound(start.begin() + low, start.begin() + high, t);
    return static_cast<int64_t>(found - start.begin()) - 1;
}

int64_t BusyIntervals::nextStartAtOrAfter(int64_t t) const {
    const auto found = std::lower_bound(start.begin(), start.end(), t);
    return found == start.end() ? std::numeric_limits<int64_t>::max() : *found;
}

bool BusyIntervals::overlaps(int64_t a, int64_t b) const {
    // The last interval starting before b is the only candidate (they are disjoint and sorted).
    const auto after = std::lower_bound(start.begin(), start.end(), b);
    if (after == start.begin())
        return false;
    return end[static_cast<size_t>(after - start.begin()) - 1] > a;
}

int64_t BusyIntervals::lastEndAtOrBefore(int64_t t) const {
    // Ends are sorted too (disjoint intervals in start order).
    const auto after = std::upper_bound(end.begin(), end.end(), t);
    return after == end.begin() ? std::numeric_limits<int64_t>::min() : *(after - 1);
}

} // namespace stallscope::model
