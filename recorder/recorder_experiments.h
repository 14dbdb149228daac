// RecorderExperiments: the recorder's ablation switches, for the overhead benchmarks in bench/
// (bench/recorder/ablation.py, bench/sampling, bench/whatif) and never for users: each one trades
// away something a session needs (its clock, its stacks) to show what that part costs. They come
// in one environment variable, STALLSCOPE_EXPERIMENT, a comma-separated list of NAME=VALUE
// (bench/recorder/README.md lists them); a session recorded with any of them says so in its meta.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace stallscope::recorder {

struct RecorderExperiments {
    static constexpr std::string_view kVariable = "STALLSCOPE_EXPERIMENT";

    // clock=: how CUPTI's timestamps reach CLOCK_MONOTONIC (cupti_clock.h). `offset` (the
    // product's): a per-buffer offset; `callback`: CUPTI's per-timestamp callback; `cupti`:
    // unconverted.
    enum class Clock : uint8_t { Offset, Callback, Cupti };
    // sampler=: the Python sampler ticks without reading (`tick`) or reads without publishing
    // (`walk`).
    enum class Sampler : uint8_t { Full, TickOnly, WalkOnly };

    Clock clock = Clock::Offset;
    bool cuptiFlushes = false; // flush=cupti: CUPTI's own thread delivers buffers
    bool cuptiZeroes = false;  // zeroing=cupti: CUPTI zeroes its buffers on the program's threads
    bool fdeIndex = true;      // fde-index=off: libgcc finds each new PC's FDE
    bool apiCallbacks = true;  // callbacks=off: no API callbacks (no stacks, no host intervals)
    Sampler sampler = Sampler::Full;
    // probe-api=keep: the overhead probe leaves the per-call API records on in its stretches
    // (whether switching them mid-call is what breaks correlation ids; bench/RESULTS.md).
    bool probeKeepsApiRecords = false;
    // probe-gate=off: the overhead probe switches without waiting for the calls in flight
    // (api_gate.h), which is what broke correlation ids.
    bool probeGate = true;

    // Applies a list such as "clock=callback,flush=cupti"; an unknown name or value is reported
    // in *warnings and changes nothing.
    void apply(std::string_view list, std::string* warnings);
    // The list apply() reads back, only what differs from the product's defaults; "" for none
    // (meta recorder_experiments).
    std::string text() const;
    const char* clockName() const;

    bool operator==(const RecorderExperiments&) const = default;
};

} // namespace stallscope::recorder
