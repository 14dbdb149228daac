// Struct-of-arrays columns for the events of one lane, sorted by start time. No per-event objects:
// a 10-million-event session must load in seconds and take a few dozen bytes per event.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <tuple>
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
    // Sorts the interval part by start and returns the permutation for the kind-specific columns,
    // or an empty vector when the lane was already in order (the common case: recorders write in
    // time order). Ties: longer first, so enclosing calls precede the calls they contain.
    std::vector<uint32_t> sortByStart();
    void trimSpareCapacity();
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

// Trims a column's spare capacity when it is more than a sixteenth of its size: trimming copies
// the column, which a column reserved from a good estimate (reserveScaled) need not pay for.
template <typename T> void trimSpare(std::vector<T>& column) {
    if (column.capacity() - column.size() > column.size() / 16)
        column.shrink_to_fit();
}

template <typename T> size_t columnBytes(const std::vector<T>& column) {
    return column.capacity() * sizeof(T);
}

// The columns of one kind of event: the interval part plus the kind's own columns, which each kind
// names once in `static auto kindColumns(auto& self)` so that sorting, trimming and byte counts
// cannot miss one.
template <typename Kind> struct EventColumns : IntervalColumns {
    // Sorts by start (if needed) and trims spare capacity (trimSpare); called once after
    // loading.
    void finalize() {
        const std::vector<uint32_t> order = sortByStart();
        std::apply(
            [&order](auto&... own) {
                if (!order.empty())
                    (applyPermutation(own, order), ...);
                (trimSpare(own), ...);
            },
            Kind::kindColumns(static_cast<Kind&>(*this)));
        trimSpareCapacity();
    }
    // Room for about `scale` times the events held (a reader's estimate from the part of its
    // table read so far), so that the columns grow once instead of doubling and copying.
    void reserveScaled(double scale) {
        const size_t n = static_cast<size_t>(double(size()) * scale * 1.02) + 256;
        if (n <= start.capacity())
            return;
        reserve(n);
        std::apply([n](auto&... own) { (own.reserve(n), ...); },
                   Kind::kindColumns(static_cast<Kind&>(*this)));
    }
    size_t memoryBytes() const {
        return std::apply(
            [this](const auto&... own) {
                return IntervalColumns::memoryBytes() + (columnBytes(own) + ...);
            },
            Kind::kindColumns(static_cast<const Kind&>(*this)));
    }
};

// Named events that carry the CUDA correlation id: runtime/driver API calls on a host thread and
// kernels on a GPU stream.
struct NamedEventColumns : EventColumns<NamedEventColumns> {
    std::vector<uint32_t> nameId;
    std::vector<uint32_t> correlationId;
    static auto kindColumns(auto& self) { return std::tie(self.nameId, self.correlationId); }
};
using ApiCallColumns = NamedEventColumns;

// GPU stream: kernels, with their launch grid's block count (saturated at kMaxBlocks;
// kBlocksUnknown when the source gave no grid, a Kineto trace without one). Sessions built
// without it leave `blocks` empty: blocksOf() answers for both.
struct KernelColumns : EventColumns<KernelColumns> {
    std::vector<uint32_t> nameId;
    std::vector<uint32_t> correlationId;
    std::vector<uint16_t> blocks;
    static constexpr uint16_t kBlocksUnknown = 0;
    static constexpr uint16_t kMaxBlocks = 0xffff;
    uint16_t blocksOf(size_t i) const { return i < blocks.size() ? blocks[i] : kBlocksUnknown; }
    // The blocks of a grid (x, y, z >= 0; 0 when the source gave none), saturated at kMaxBlocks.
    static uint16_t blocksOfGrid(int64_t x, int64_t y, int64_t z) {
        int64_t blocks = 1;
        for (const int64_t extent : {x, y, z})
            blocks = std::min<int64_t>(blocks * std::min<int64_t>(extent, kMaxBlocks), kMaxBlocks);
        return static_cast<uint16_t>(blocks);
    }
    static auto kindColumns(auto& self) {
        return std::tie(self.nameId, self.correlationId, self.blocks);
    }
};

// Host thread: intervals where the host was blocked waiting for the GPU.
struct SyncColumns : EventColumns<SyncColumns> {
    std::vector<uint8_t> kind; // format::SyncKind
    std::vector<uint32_t> correlationId;
    std::vector<int32_t> streamIndex; // index into Session::streams, -1 when none
    std::vector<uint32_t> stackId;    // session stack id, 0 when none
    std::vector<int64_t> eventId;     // CUPTI event id (event syncs, stream-wait-event), -1 none
    static auto kindColumns(auto& self) {
        return std::tie(self.kind, self.correlationId, self.streamIndex, self.stackId,
                        self.eventId);
    }
};

// GPU stream: memcpys and memsets.
struct TransferColumns : EventColumns<TransferColumns> {
    std::vector<uint32_t> correlationId;
    std::vector<uint64_t> bytes;
    std::vector<uint8_t> copyKind; // format::CopyKind (0 for memsets)
    std::vector<uint8_t> srcKind;  // format::MemoryKind (0 for memsets)
    std::vector<uint8_t> dstKind;  // format::MemoryKind
    static auto kindColumns(auto& self) {
        return std::tie(self.correlationId, self.bytes, self.copyKind, self.srcKind, self.dstKind);
    }
};

// Host thread: the Python sampler's runs (format v3, host_samples): run i holds samples[i] samples
// of the stack stackId[i], equally spaced from start[i] (the first) to end[i] (the last).
struct SampleColumns : EventColumns<SampleColumns> {
    std::vector<uint32_t> stackId; // session stack id
    std::vector<uint32_t> samples; // >= 1
    static auto kindColumns(auto& self) { return std::tie(self.stackId, self.samples); }
    // How many of run i's samples lie in [from, to).
    int64_t samplesIn(size_t i, int64_t from, int64_t to) const {
        const int64_t n = samples[i];
        if (n <= 1)
            return start[i] >= from && start[i] < to ? n : 0;
        // Sample k is at start + k * span / (n - 1): count the k with from <= that < to.
        const __int128 span = end[i] - start[i];
        auto firstAtOrAfter = [&](int64_t t) -> int64_t {
            if (t <= start[i])
                return 0;
            if (t > end[i])
                return n;
            const __int128 offset = t - start[i];
            return static_cast<int64_t>((offset * (n - 1) + span - 1) / span);
        };
        return std::max<int64_t>(0, firstAtOrAfter(to) - firstAtOrAfter(from));
    }
};

// One nesting depth of a thread's NVTX ranges / scopes.
struct RangeColumns : EventColumns<RangeColumns> {
    std::vector<uint32_t> nameId;
    static auto kindColumns(auto& self) { return std::tie(self.nameId); }
};

} // namespace stallscope::model
