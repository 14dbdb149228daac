// KinetoWindow: the stretch of one trace file that the profiler recorded. Host events around it
// (Python start-up, an unclosed ProfilerStep whose end Kineto set at shutdown) would otherwise
// stretch the session to seconds around a few µs of GPU work and make every share ~0. The
// window is, in order of preference:
//  * the ProfilerStep#N ranges, first start to last end, where steps that end after all CUDA
//    activity (GPU work and CUDA calls) by more than the steps' activity lasted are taken as
//    unclosed and end with that activity; never past the end of Kineto's own
//    "PyTorch Profiler (N)" span when the trace has one; and never before the end of the GPU
//    work (what the last step queued runs on after it);
//  * else the GPU work (kernels, copies, sets) from the call that launched the first of it (when
//    that call is among the first 4096 CUDA calls; else from the work itself), to its end or, if
//    later, the end of the last sync (the host waiting for it);
//  * else none: the file is not clipped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stallscope::model {

class KinetoWindow {
public:
    struct Span {
        int64_t startNs = 0;
        int64_t endNs = 0;
        std::string label; // "profiler steps 3-7", "device activity"; empty: no window
        bool valid() const { return !label.empty(); }
        // Clips [start, end] to the span; false when it lies wholly outside (no span: true).
        bool clip(int64_t& start, int64_t& end) const;
    };

    static bool isProfilerStep(std::string_view name);

    void clear() { *this = KinetoWindow(); }
    void addProfilerStep(std::string_view name, int64_t start, int64_t end);
    void addProfilerSpan(int64_t start, int64_t end); // Kineto's "Trace" event
    void addGpuWork(int64_t start, int64_t end, int64_t correlation);
    void addCudaCall(int64_t start, int64_t end, int64_t correlation);
    // After every event: a sync that ends after the GPU work starts widens the device window.
    void addSync(int64_t start, int64_t end);

    Span resolve() const;
    // Whether the rows written as they streamed by (CUDA calls, GPU work) reach outside `span`.
    bool writtenRowsOutside(const Span& span) const;

private:
    struct Bounds {
        int64_t first = INT64_MAX;
        int64_t last = INT64_MIN;
        bool empty() const { return first > last; }
    };
    static void widen(Bounds& b, int64_t start, int64_t end);

    Bounds m_steps;
    int64_t m_lastStepStart = INT64_MIN;
    int64_t m_firstStep = INT64_MAX; // step numbers (N of ProfilerStep#N)
    int64_t m_lastStep = INT64_MIN;
    Bounds m_profilerSpan;
    Bounds m_gpu;
    Bounds m_calls;
    Bounds m_syncsAfterGpu;
    int64_t m_firstGpuCorrelation = -1; // of the earliest GPU operation
    // The earliest calls by start, as (correlation, start): where the first GPU work's launch is.
    static constexpr size_t kEarlyCalls = 4096;
    std::vector<std::pair<int64_t, int64_t>> m_callStarts;
};

} // namespace stallscope::model
