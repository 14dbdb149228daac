// Struct-of-arrays columns for the events of one lane, sorted by start time. No per-event objects:
// a 10-million-event session must load in seconds and take a few dozen bytes per event.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

namespace stallscope::model {

// Start/end times (ns, host CLOCK_MONOTONIC) and the event's row id in its session table, plus
// the kind-specific columns of the derived structs. Events of one lane may nest (API calls), so
// overlap queries use the lane's longest duration to bound the binary search.
struct IntervalColumns {
    std::vector<int64_t> start;
    std::vector<int64_t> end;
    std::vector<uint32_t> rowId;
    int64_t maxDuration = 0;

    size_t size() const { return start.size(); }
    bool empty() const { return start.empty(); }
    int64_t duration(size_t i) const { return end[i] - start[i]; }

    // First index whose start is >= t.
    size_t firstStartingAtOrAfter(int64_t t) const {
        return static_cast<size_t>(std::lower_bound(start.begin(), start.end(), t) - start.begin());
    }
    // First index that may overlap [t, ...): no event before it ends after t.
    size_t firstEndingAfter(int64_t t) const {
        size_t i = firstStartingAtOrAfter(t - maxDuration);
        while (i < size() && end[i] <= t && start[i] < t)
            ++i;
        return i;
    }
    // Index of the latest-starting event with start <= t < end, or npos.
    static constexpr size_t npos = static_cast<size_t>(-1);
    size_t findAt(int64_t t) const {
        size_t i = firstStartingAtOrAfter(t + 1); // events starting at or before t lie before i
        for (size_t j = i; j > 0; --j) {
            const size_t k = j - 1;
            if (start[k] < t - maxDuration)
                break;
            if (end[k] > t)
                return k;
        }
        return npos;
    }

    void reserve(size_t n) {
        start.reserve(n);
        end.reserve(n);
        rowId.reserve(n);
    }
    void pushInterval(int64_t s, int64_t e, uint32_t row) {
        start.push_back(s);
        end.push_back(e);
        rowId.push_back(row);
        maxDuration = std::max(maxDuration, e - s);
    }
    bool isSorted() const { return std::is_sorted(start.begin(), start.end()); }
    // Order by start (ties: longer first, so enclosing calls precede the calls they contain).
    std::vector<uint32_t> sortPermutation() const {
        std::vector<uint32_t> order(size());
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(), [this](uint32_t a, uint32_t b) {
            return start[a] != start[b] ? start[a] < start[b] : end[a] > end[b];
        });
        return order;
    }
    size_t memoryBytes() const {
        return start.capacity() * 8 + end.capacity() * 8 + rowId.capacity() * 4;
    }
};

template <typename T>
void applyPermutation(std::vector<T>& column, const std::vector<uint32_t>& order) {
    if (column.empty())
        return;
    std::vector<T> sorted(column.size());
    for (size_t i = 0; i < order.size(); ++i)
        sorted[i] = column[order[i]];
    column.swap(sorted);
}

template <typename T> size_t columnBytes(const std::vector<T>& column) {
    return column.capacity() * sizeof(T);
}

// Host thread: runtime/driver API calls.
struct ApiCallColumns : IntervalColumns {
    std::vector<uint32_t> nameId;
    std::vector<uint32_t> correlationId;
    // Sorts by start (if needed) and trims spare capacity; called once after loading.
    void finalize();
    size_t memoryBytes() const;
};

// Host thread: intervals where the host was blocked waiting for the GPU.
struct SyncColumns : IntervalColumns {
    std::vector<uint8_t> kind; // format::SyncKind
    std::vector<uint32_t> correlationId;
    std::vector<int32_t> streamIndex; // index into Session::streams, -1 when none
    std::vector<uint32_t> stackId;    // session stack id, 0 when none
    // Sorts by start (if needed) and trims spare capacity; called once after loading.
    void finalize();
    size_t memoryBytes() const;
};

// GPU stream: kernels.
struct KernelColumns : IntervalColumns {
    std::vector<uint32_t> nameId;
    std::vector<uint32_t> correlationId;
    // Sorts by start (if needed) and trims spare capacity; called once after loading.
    void finalize();
    size_t memoryBytes() const;
};

// GPU stream: memcpys and memsets.
struct TransferColumns : IntervalColumns {
    std::vector<uint32_t> correlationId;
    std::vector<uint64_t> bytes;
    std::vector<uint8_t> copyKind; // format::CopyKind (0 for memsets)
    std::vector<uint8_t> srcKind;  // format::MemoryKind (0 for memsets)
    std::vector<uint8_t> dstKind;  // format::MemoryKind
    // Sorts by start (if needed) and trims spare capacity; called once after loading.
    void finalize();
    size_t memoryBytes() const;
};

// One nesting depth of a thread's NVTX ranges / scopes.
struct RangeColumns : IntervalColumns {
    std::vector<uint32_t> nameId;
    // Sorts by start (if needed) and trims spare capacity; called once after loading.
    void finalize();
    size_t memoryBytes() const;
};

} // namespace stallscope::model
