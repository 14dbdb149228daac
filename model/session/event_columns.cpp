#include "model/session/event_columns.h"

#include <numeric>

namespace stallscope::model {

std::vector<uint32_t> IntervalColumns::sortByStart() {
    if (isSorted())
        return {};
    std::vector<uint32_t> order(size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [this](uint32_t a, uint32_t b) {
        return start[a] != start[b] ? start[a] < start[b] : end[a] > end[b];
    });
    applyPermutation(start, order);
    applyPermutation(end, order);
    applyPermutation(rowId, order);
    return order;
}

void IntervalColumns::trimSpareCapacity() {
    trimSpare(start);
    trimSpare(end);
    trimSpare(rowId);
}

} // namespace stallscope::model
