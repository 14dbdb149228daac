// BoundedQuantiles: the median and 90th percentile of a stream of durations in bounded memory.
// The first `exactLimit` values are kept as they are (quantiles exact); past that they are counted
// in logarithmic buckets, 32 to each power of two, so a quantile is then within 1/64 (1.6 %) of
// the exact one and the memory stays at most kBucketCount counts however many values come.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace stallscope::model::fleet {

class BoundedQuantiles {
public:
    static constexpr size_t kDefaultExactLimit = 1024;
    // Values 0..63 have a bucket each; above, 32 buckets per power of two up to 2^63.
    static constexpr size_t kBucketCount = 64 + 58 * 32;

    explicit BoundedQuantiles(size_t exactLimit = kDefaultExactLimit) : m_exactLimit(exactLimit) {}

    void add(int64_t value); // a negative value (a crafted file's) counts as 0
    int64_t count() const { return m_count; }
    // True while every value is kept: the quantiles below are the exact ones.
    bool exact() const { return m_buckets.empty(); }
    // The upper median: the value at index count / 2 of the sorted values.
    int64_t median() const;
    // The nearest-rank 90th percentile: the value at index ceil(0.9 × count) − 1.
    int64_t p90() const;
    // What the values cost in memory: at most max(exactLimit × 8, kBucketCount × 4) bytes.
    size_t bytes() const;

private:
    // The value at index `index` (0-based) of the sorted values; 0 without values.
    int64_t atSortedIndex(int64_t index) const;

    size_t m_exactLimit;
    int64_t m_count = 0;
    mutable std::vector<int64_t> m_values; // sorted lazily
    mutable bool m_sorted = true;
    std::vector<uint32_t> m_buckets; // kBucketCount counts once past the limit
};

} // namespace stallscope::model::fleet
