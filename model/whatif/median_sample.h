// Medians as the analysis defines them (docs/insights.md): the upper median, always an observed
// value. upperMedian: of a vector (reordered in place). MedianSample: of a stream of values in
// bounded memory — every value up to a capacity, then every second, fourth, ... one (a
// deterministic thinning, so the same session always calibrates the same way).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace stallscope::model::whatif {

// The element at position size / 2 of the sorted values; T{} when there are none.
template <typename T> T upperMedian(std::vector<T>& values) {
    if (values.empty())
        return T{};
    auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end());
    return *middle;
}

class MedianSample {
public:
    explicit MedianSample(size_t capacity = 1 << 16) : m_capacity(capacity) {}

    void add(int64_t value) {
        if (m_seen++ % m_stride != 0)
            return;
        m_values.push_back(value);
        if (m_values.size() < m_capacity)
            return;
        // Full: keep every second value and take every second one from now on.
        size_t kept = 0;
        for (size_t i = 0; i < m_values.size(); i += 2)
            m_values[kept++] = m_values[i];
        m_values.resize(kept);
        m_stride *= 2;
    }
    // The upper median (an observed value), or `fallback` when nothing was added.
    int64_t medianOr(int64_t fallback) {
        return m_values.empty() ? fallback : upperMedian(m_values);
    }

private:
    size_t m_capacity;
    size_t m_stride = 1;
    uint64_t m_seen = 0;
    std::vector<int64_t> m_values;
};

} // namespace stallscope::model::whatif
