// RecorderConfig: what to record and where, read from STALLSCOPE_* environment variables (the
// injection path) or filled in by stallscope::start() (the linked-in API). docs/recorder.md lists
// every variable.
#pragma once

#include "recorder/capture_variables.h"
#include "recorder/host_event.h"
#include "recorder/recorder_experiments.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope::recorder {

// The settings' ranges, for the environment and the linked-in API (which clamp into them) and
// stallscope-record's options (which refuse what lies outside). The sampler's rate: 0 (off) or
// PythonSampler::kMinHz..kMaxHz.
inline constexpr int kMinStackDepth = 1;
inline constexpr int kMaxStackDepth = kMaxStackFrames; // the PCs a HostEvent holds
inline constexpr int kMinFlushMs = 10;
inline constexpr int kMaxFlushMs = 1000; // commits at least once a second
inline constexpr uint64_t kMinBufferBytes = 64ull << 10;
inline constexpr uint64_t kMaxBufferBytes = 256ull << 20;

// Capture control's ranges: --delay 0..kMaxCaptureSeconds, --duration kMinCaptureDurationNs..
// kMaxCaptureSeconds, an NVTX range's name 1..kMaxNvtxCaptureNameBytes bytes.
inline constexpr int64_t kNsPerSecond = 1'000'000'000;
inline constexpr int64_t kMaxCaptureSeconds = 1'000'000; // 11.6 days
inline constexpr int64_t kMaxCaptureNs = kMaxCaptureSeconds * kNsPerSecond;
inline constexpr int64_t kMinCaptureDurationNs = 1'000'000; // 1 ms
inline constexpr size_t kMaxNvtxCaptureNameBytes = 1024;
// --capture-steps A-B: the ranges are counted from 1, up to kMaxCaptureStep.
inline constexpr int64_t kMaxCaptureStep = 1'000'000'000;
// The flight recorder's ranges: --ring kMinRingNs..kMaxRingSeconds, --trigger-slow-step
// kMinSlowStepFactor..kMaxSlowStepFactor (at least twice the median: below that a sync that waits
// as long as usual could pass for a slow step, flight_recorder.h).
inline constexpr int64_t kMinRingNs = 100'000'000; // 0.1 s
inline constexpr int64_t kMaxRingSeconds = 86'400; // a day
inline constexpr double kMinSlowStepFactor = 2;
inline constexpr double kMaxSlowStepFactor = 1000;

// "8M", "512k", "1048576": bytes, or K, M, G (binary multiples); nullopt for anything else or a
// size past 2^64.
std::optional<uint64_t> parseByteSize(std::string_view text);
// "2", "0.5", "1.000000001": seconds as digits with at most 9 decimals, in ns; nullopt for
// anything else (a sign, an exponent, a unit) or more than kMaxCaptureSeconds.
std::optional<int64_t> parseSeconds(std::string_view text);
// `ns` as parseSeconds reads it back ("1.5"; "0" for 0).
std::string secondsText(int64_t ns);

// Capture control: which part of the run is recorded (stallscope-record --delay, --duration,
// --capture-range, --capture-range-end; the environment's STALLSCOPE_DELAY, STALLSCOPE_DURATION,
// STALLSCOPE_CAPTURE_RANGE, STALLSCOPE_CAPTURE_RANGE_END). The recorder applies it with
// CaptureControl (capture_control.h). Inactive by default: everything is recorded.
struct CaptureSettings {
    enum class Range : uint8_t { None, ProfilerApi, Nvtx };
    enum class RangeEnd : uint8_t { Default, Stop, Repeat };
    Range range = Range::None;
    std::string nvtxName; // Range::Nvtx: the message of the ranges to record
    RangeEnd rangeEnd = RangeEnd::Default;
    int64_t delayNs = 0;    // nothing is recorded for this long after the recorder starts
    int64_t durationNs = 0; // recording stops this long after it began; 0: at the end
    // --capture-steps A-B: the range's occurrences are the program's steps, counted from 1 from
    // the recorder's start; only the A-th through the B-th are recorded, then nothing (0: every
    // range, as rangeEnd says).
    int64_t firstStep = 0, lastStep = 0;
    // The flight recorder (flight_recorder.h): only the last ringNs of what was recorded is kept
    // (0: everything), and a step slower than slowStepFactor times the median has the ring
    // written to a snapshot (0: no trigger).
    int64_t ringNs = 0;
    double slowStepFactor = 0;

    bool active() const {
        return range != Range::None || delayNs > 0 || durationNs > 0 || ringNs > 0;
    }
    // Whether every range is recorded (repeat) or the first one only (stop). By default every
    // cudaProfilerStart/Stop range and the first NVTX range.
    bool repeats() const {
        return hasSteps() || rangeEnd == RangeEnd::Repeat ||
               (rangeEnd == RangeEnd::Default && range == Range::ProfilerApi);
    }
    bool hasSteps() const { return firstStep > 0; }
    // "A-B" as --capture-steps takes it (meta capture_steps); empty without steps.
    std::string stepsText() const;
    // "none", "cuda-profiler-api", "nvtx:NAME": as --capture-range takes it (meta capture_range).
    std::string rangeText() const;
    const char* rangeEndText() const { return repeats() ? "repeat" : "stop"; }
    // The slow-step factor as --trigger-slow-step takes it ("5", "2.5"; "0": none).
    std::string slowStepText() const { return secondsText(int64_t(slowStepFactor * kNsPerSecond)); }
    // The STALLSCOPE_* entries ("NAME=value") that hand these settings to the target's recorder,
    // which reads them back unchanged (fromEnvironment); none when inactive.
    std::vector<std::string> environment() const;
    // Whether an environment entry is one of them (the calibration leaves them out: it measures
    // the recorder while it records).
    static bool isSettingEntry(std::string_view entry);

    // What is wrong with a value of --delay, --duration, --capture-range or --capture-range-end
    // ("" when nothing is: the value is then applied), values outside the ranges above included.
    // stallscope-record refuses such a value; the recorder reports the environment's and keeps
    // what it had.
    std::string applyDelay(std::string_view text);
    std::string applyDuration(std::string_view text);
    std::string applyRange(std::string_view text);
    std::string applyRangeEnd(std::string_view text);
    std::string applySteps(std::string_view text);
    std::string applyRing(std::string_view text);
    std::string applySlowStepTrigger(std::string_view text);

    bool operator==(const CaptureSettings&) const = default;
};

// The recording modes (RecorderConfig::applyMode, stallscope-record --mode).
inline bool isRecorderMode(std::string_view mode) {
    return mode == "full" || mode == "light";
}

struct RecorderConfig {
    // %p: pid, %r: rank (the pid when none), %h: host name, %%: '%' (launch_environment.h)
    std::string outputPattern = "stallscope-%p.stallscope";
    bool kernels = true;
    bool memcpy = true;
    bool memset = true;
    bool syncs = true;
    // CUPTI's SYNCHRONIZATION records as well: without them a sync's wait is timed by the API
    // callback that captures its stack; with them it carries CUPTI's event id and syncs the
    // driver makes on its own appear. Opt-in: they cost ~28 points on a launch-bound PyTorch
    // loop (bench/RESULTS.md, issue 19).
    bool syncRecords = false;
    bool runtimeApi = true; // launches, copies, syncs, allocations, event records (not all APIs)
    bool driverApi = true;  // same filter, driver entry points
    bool nvtx = true;
    bool cudaEvents = false; // CUDA_EVENT records: off by default (one record per cudaEventRecord)
    bool stacks = true;
    bool pythonFrames = true; // Python frames with each stack when the process hosts CPython
    // The Python sampler's rate (python_sampler.h), samples per second of every Python thread;
    // 0: off. bench/RESULTS.md has its overhead.
    int sampleHz = 200;
    // The GPU power sampler's rate (gpu_power_sampler.h), NVML polls per second; 0: off.
    int gpuPowerHz = 20;
    int stackDepth = 64;
    uint64_t bufferBytes = 8ull << 20;
    int flushMs = 500;
    int64_t rootPid = 0; // set by stallscope-record: this pid writes outputPattern unchanged
    bool disabled = false;
    // "light" (applyMode): syncs with their stacks, GPU work, NVTX and the GPU's power samples;
    // no API records, no Python samples. The analysis infers each launch from the correlation
    // ids' order instead.
    bool light = false;
    // The in-run overhead probe (overhead_probe.h): a few stretches of the loop recorded with the
    // collection off, to measure what the recorder costs this program (STALLSCOPE_OVERHEAD_PROBE
    // =1 turns it on; off by default: see docs/insights.md, "The recorder's own cost").
    bool overheadProbe = false;
    // What this recorder costs on this machine (STALLSCOPE_CALIBRATION, from stallscope-record's
    // stallscope-calibrate run: recorder_calibration.h), written into the meta; -1: not measured.
    int64_t restartOverheadNs = -1;
    int64_t launchOverheadNs = -1;
    int64_t deepQueueDelayNs = -1;   // the GPU's, from the same probe (gpu_deep_queue_delay_ns)
    CaptureSettings capture;         // which part of the run is recorded; all of it by default
    RecorderExperiments experiments; // the benchmarks' ablations (STALLSCOPE_EXPERIMENT); none

    // Reads the environment. Unknown values are reported in *warnings (never fatal).
    static RecorderConfig fromEnvironment(std::string* warnings);
    // Applies a comma-separated kinds list ("kernel,memcpy,sync,runtime,...", "all", "-nvtx").
    bool applyKinds(const std::string& list, std::string* warnings);
    // The words applyKinds takes, "all,kernel,kernels,...".
    static std::string kindWords();
    // The output path for process `pid` of rank `rank`: patterns expanded; a process other than
    // the root of a stallscope-record run gets ".<pid>" before the extension (unless the pattern
    // has %p) so children never share a file.
    std::string outputPathFor(int64_t pid, std::optional<int64_t> rank = std::nullopt) const;
    std::string describeKinds() const;
    // "full" (the defaults) or "light"; false for anything else. Applied before the kinds and
    // rates, which may then change it further.
    bool applyMode(std::string_view mode);
    const char* modeName() const { return light ? "light" : "full"; }
    // Whether CUPTI's SYNCHRONIZATION records are enabled: on request, and with CUDA_EVENT
    // records, whose links to event syncs need the records' event ids.
    bool wantsSyncRecords() const { return syncs && (syncRecords || cudaEvents); }
};

} // namespace stallscope::recorder
