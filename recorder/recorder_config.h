// RecorderConfig: what to record and where, read from STALLSCOPE_* environment variables (the
// injection path) or filled in by stallscope::start() (the linked-in API). docs/recorder.md lists
// every variable.
#pragma once

#include "recorder/host_event.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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

// "8M", "512k", "1048576": bytes, or K, M, G (binary multiples); nullopt for anything else or a
// size past 2^64.
std::optional<uint64_t> parseByteSize(std::string_view text);

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
    // What this recorder costs on this machine (STALLSCOPE_CALIBRATION, from stallscope-record's
    // stallscope-calibrate run: recorder_calibration.h), written into the meta; -1: not measured.
    int64_t restartOverheadNs = -1;
    int64_t launchOverheadNs = -1;
    int64_t deepQueueDelayNs = -1; // the GPU's, from the same probe (gpu_deep_queue_delay_ns)

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
