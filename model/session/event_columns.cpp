#include "model/session/event_columns.h"

namespace stallscope::model {

namespace {

// Sorts the interval part and returns the permutation for the kind-specific columns, or an empty
// vector when the lane was already in order (the common case: recorders write in time order).
std::vector<uint32_t> sortIntervals(IntervalColumns& columns) {
    if (columns.isSorted())
        return {};
    std::vector<uint32_t> order = columns.sortPermutation();
    applyPermutation(columns.start, order);
    applyPermutation(columns.end, order);
    applyPermutation(columns.rowId, order);
    return order;
}

template <typename... Columns> void shrink(IntervalColumns& intervals, Columns&... columns) {
    intervals.start.shrink_to_fit();
    intervals.end.shrink_to_fit();
    intervals.rowId.shrink_to_fit();
    (columns.shrink_to_fit(), ...);
}

} // namespace

void ApiCallColumns::finalize() {
    const auto order = sortIntervals(*this);
    if (!order.empty()) {
        applyPermutation(nameId, order);
        applyPermutation(correlationId, order);
    }
    shrink(*this, nameId, correlationId);
}

size_t ApiCallColumns::memoryBytes() const {
    return IntervalColumns::memoryBytes() + columnBytes(nameId) + columnBytes(correlationId);
}

void SyncColumns::finalize() {
    const auto order = sortIntervals(*this);
    if (!order.empty()) {
        applyPermutation(kind, order);
        applyPermutation(correlationId, order);
        applyPermutation(streamIndex, order);
        applyPermutation(stackId, order);
    }
    shrink(*this, kind, correlationId, streamIndex, stackId);
}

size_t SyncColumns::memoryBytes() const {
    return IntervalColumns::memoryBytes() + columnBytes(kind) + columnBytes(correlationId) +
           columnBytes(streamIndex) + columnBytes(stackId);
}

void KernelColumns::finalize() {
    const auto order = sortIntervals(*this);
    if (!order.empty()) {
        applyPermutation(nameId, order);
        applyPermutation(correlationId, order);
    }
    shrink(*this, nameId, correlationId);
}

size_t KernelColumns::memoryBytes() const {
    return IntervalColumns::memoryBytes() + columnBytes(nameId) + columnBytes(correlationId);
}

void TransferColumns::finalize() {
    const auto order = sortIntervals(*this);
    if (!order.empty()) {
        applyPermutation(correlationId, order);
        applyPermutation(bytes, order);
        applyPermutation(copyKind, order);
        applyPermutation(srcKind, order);
        applyPermutation(dstKind, order);
    }
    shrink(*this, correlationId, bytes, copyKind, srcKind, dstKind);
}

size_t TransferColumns::memoryBytes() const {
    return IntervalColumns::memoryBytes() + columnBytes(correlationId) + columnBytes(bytes) +
           columnBytes(copyKind) + columnBytes(srcKind) + columnBytes(dstKind);
}

void RangeColumns::finalize() {
    const auto order = sortIntervals(*this);
    if (!order.empty()) {
        applyPermutation(nameId, order);
    }
    shrink(*this, nameId);
}

size_t RangeColumns::memoryBytes() const {
    return IntervalColumns::memoryBytes() + columnBytes(nameId);
}

} // namespace stallscope::model
