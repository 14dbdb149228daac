#include "recorder/capture_stats.h"

#include <algorithm>

namespace stallscope::recorder {

void CaptureStats::add(uint32_t ns) {
    ++m_seen;
    if (m_samples.size() < kMaxSamples) {
        m_samples.push_back(ns);
        return;
    }
    uint64_t slot = (m_seen * 0x9E3779B97F4A7C15ull) >> 48;
    if (slot < kMaxSamples)
        m_samples[slot] = ns;
}

int64_t CaptureStats::percentile(double fraction) const {
    if (m_samples.empty())
        return 0;
    std::vector<uint32_t> sorted = m_samples;
    size_t index = std::min(sorted.size() - 1, size_t(fraction * double(sorted.size())));
    std::nth_element(sorted.begin(), sorted.begin() + long(index), sorted.end());
    return sorted[index];
}

} // namespace stallscope::recorder
