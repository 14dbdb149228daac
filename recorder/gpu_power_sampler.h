// GpuPowerSampler: whether the process's GPUs ran at their power limit while busy — what decides
// how much of a fix's saving a GPU-bound loop keeps. A GPU at its power cap clocks higher when a
// loop leaves it idle between steps; once a fix fills those gaps it clocks lower, and its
// kernels take longer (measured on an H100: 1680 → 1643 MHz at 693 W of 700 W, bench/RESULTS.md).
// The analysis discounts such savings (InsightThresholds::powerCap).
//
// A thread polls NVML (libnvidia-ml, dlopen'ed: no link-time dependency; absent, it says so in
// meta) at `hz` for the devices the process works on (an active primary context; all CUDA-visible
// ones while none is), matched by UUID: utilization, clock-event reasons, SM clock, power. Only
// aggregates go into the session's meta (format/session_meta.h, gpu_power_*): nothing on the
// program's threads, no rows.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

namespace stallscope::format {
class SessionWriter;
}

namespace stallscope::recorder {

class GpuPowerSampler {
public:
    // NVML's clock-event reasons that mean "held back by power": the software power cap and the
    // hardware power brake.
    static constexpr unsigned long long kPowerCapReasons = 0x4ULL | 0x80ULL;
    // A sample counts as busy at this NVML utilization (% of its period with a kernel running).
    static constexpr unsigned kBusyUtilizationPercent = 90;
    static constexpr int kMaxHz = 1000;

    struct Stats {
        uint64_t samples = 0;           // device samples taken
        uint64_t busySamples = 0;       // ... of a busy device
        uint64_t busyPowerCapped = 0;   // ... busy and held back by power
        uint64_t busySmClockMhzSum = 0; // over the busy samples
        uint64_t busyPowerMilliwattSum = 0;
        uint32_t powerLimitMilliwatt = 0; // the enforced limit (the largest of the devices)
        // The power of the work (the what-if's power projection), over the steady samples: a
        // kernel ran in every sample of the device's last kSteadyAfter, so NVML's power, averaged
        // over about a second, has caught up with it. Only samples with a power reading count (a
        // GPU never draws 0 W: 0 is none).
        uint64_t steadySamples = 0;
        uint64_t steadyPowerMilliwattSum = 0;
        uint32_t minPowerMilliwatt = UINT32_MAX; // the lowest of every sample
    };
    static constexpr std::chrono::milliseconds kSteadyAfter{1000};

    // Counts one device sample into `stats` (the sampling thread's arithmetic, for tests).
    // `steady`: the device was busy (utilization > 0) in every sample of the last kSteadyAfter.
    static void count(Stats& stats, unsigned utilizationPercent, unsigned long long reasons,
                      unsigned smClockMhz, unsigned powerMilliwatt, unsigned limitMilliwatt,
                      bool steady);

    GpuPowerSampler() = default;
    GpuPowerSampler(const GpuPowerSampler&) = delete;
    GpuPowerSampler& operator=(const GpuPowerSampler&) = delete;
    ~GpuPowerSampler() { stop(); }

    // Starts the polling thread (0 Hz: off). NVML is looked for on the thread, so a missing
    // library costs the program nothing.
    void start(int hz);
    void stop();
    // Paused (capture control, outside the captured range): no samples are taken or counted.
    void setPaused(bool paused) { m_paused.store(paused, std::memory_order_relaxed); }
    // After fork() in the child: the thread is the parent's.
    void forgetAfterFork();
    // meta gpu_power ("on", or why not) and, with samples, the aggregates. After stop().
    void writeStats(format::SessionWriter& writer) const;

private:
    void run(int hz);

    std::thread m_thread;
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_paused{false};
    Stats m_stats;                // the thread's; read after join
    std::string m_status = "off"; // the thread's; read after join
};

} // namespace stallscope::recorder
