#include "model/fleet/bounded_quantiles.h"

#include <algorithm>
#include <bit>

namespace stallscope::model::fleet {

namespace {

constexpr int kSubBits = 5; // 32 buckets per power of two

size_t bucketOf(uint64_t value) {
    if (value < 64)
        return static_cast<size_t>(value);
    const int exponent = 63 - std::countl_zero(value); // 6..63
    const auto sub = static_cast<size_t>((value >> (exponent - kSubBits)) & 31);
    return 64 + static_cast<size_t>(exponent - 6) * 32 + sub;
}

// The middle of a bucket's values: what a counted value reads as.
int64_t bucketValue(size_t bucket) {
    if (bucket < 64)
        return static_cast<int64_t>(bucket);
    const int exponent = static_cast<int>((bucket - 64) / 32) + 6;
    const uint64_t sub = (bucket - 64) % 32;
    const uint64_t width = uint64_t(1) << (exponent - kSubBits);
    const uint64_t low = (32 + sub) * width;
    return static_cast<int64_t>(std::min<uint64_t>(low + width / 2, INT64_MAX));
}

} // namespace

void BoundedQuantiles::add(int64_t value) {
    value = std::max<int64_t>(value, 0);
    ++m_count;
    if (m_buckets.empty() && m_values.size() < m_exactLimit) {
        m_sorted = m_sorted && (m_values.empty() || m_values.back() <= value);
        m_values.push_back(value);
        return;
    }
    if (m_buckets.empty()) { // the limit is passed: the kept values move into buckets
        m_buckets.assign(kBucketCount, 0);
        for (const int64_t kept : m_values)
            ++m_buckets[bucketOf(static_cast<uint64_t>(kept))];
        m_values.clear();
        m_values.shrink_to_fit();
    }
    uint32_t& bucket = m_buckets[bucketOf(static_cast<uint64_t>(value))];
    bucket = bucket == UINT32_MAX ? bucket : bucket + 1;
}

int64_t BoundedQuantiles::atSortedIndex(int64_t index) const {
    if (m_count == 0)
        return 0;
    index = std::clamp<int64_t>(index, 0, m_count - 1);
    if (m_buckets.empty()) {
        if (!m_sorted) {
            std::sort(m_values.begin(), m_values.end());
            m_sorted = true;
        }
        return m_values[static_cast<size_t>(index)];
    }
    int64_t seen = 0;
    for (size_t bucket = 0; bucket < m_buckets.size(); ++bucket) {
        seen += m_buckets[bucket];
        if (seen > index)
            return bucketValue(bucket);
    }
    return bucketValue(m_buckets.size() - 1);
}

int64_t BoundedQuantiles::median() const {
    return atSortedIndex(m_count / 2);
}

int64_t BoundedQuantiles::p90() const {
    return atSortedIndex((9 * m_count + 9) / 10 - 1); // ceil(0.9 n) - 1
}

size_t BoundedQuantiles::bytes() const {
    return m_values.capacity() * sizeof(int64_t) + m_buckets.capacity() * sizeof(uint32_t);
}

} // namespace stallscope::model::fleet
