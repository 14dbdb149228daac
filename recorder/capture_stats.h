// CaptureStats: a bounded reservoir of per-event capture times (ns) for the median/p90 written to
// the session's meta (stack_capture_*, python_capture_*). Writer thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace stallscope::recorder {

class CaptureStats {
public:
    void add(uint32_t ns);
    int64_t count() const { return int64_t(m_seen); }
    // The value at `fraction` (0.5: median) of the samples kept; 0 when none.
    int64_t percentile(double fraction) const;

private:
    static constexpr size_t kMaxSamples = 1 << 16;
    std::vector<uint32_t> m_samples;
    uint64_t m_seen = 0;
};

} // namespace stallscope::recorder
