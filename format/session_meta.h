// The keys of the session's meta table (key TEXT, value TEXT), named once for every writer and
// reader. docs/session-format.md says what each value holds.
#pragma once

#include <cstdint>
#include <string_view>

namespace stallscope::format::meta {

// Written by SessionWriter::create for every session.
inline constexpr std::string_view kFormatName = "format_name";
inline constexpr std::string_view kFormatVersion = "format_version";
inline constexpr std::string_view kClock = "clock";
inline constexpr std::string_view kStatus = "status"; // kStatusRecording/Complete/Incomplete
inline constexpr std::string_view kIncompleteReason = "incomplete_reason";

// The recorded run.
inline constexpr std::string_view kCommand = "command";
inline constexpr std::string_view kHost = "host";
inline constexpr std::string_view kStartNs = "start_ns";
inline constexpr std::string_view kEndNs = "end_ns";
inline constexpr std::string_view kExitCode = "exit_code";
inline constexpr std::string_view kExitSignal = "exit_signal";
inline constexpr std::string_view kTerminatedBySignal = "terminated_by_signal";
inline constexpr std::string_view kDurationNs = "duration_ns";
inline constexpr std::string_view kRecordStartNs = "record_start_ns";
inline constexpr std::string_view kRecordEndNs = "record_end_ns";

// The recorder's settings and measurements.
inline constexpr std::string_view kRecorderOrigin = "recorder_origin";
inline constexpr std::string_view kRecorderKinds = "recorder_kinds";
// "full" or "light" (stallscope-record --mode): a light recording has no API calls.
inline constexpr std::string_view kRecorderMode = "recorder_mode";
// What the recorder costs on the recording machine (recorder/recorder_calibration.h, measured by
// stallscope-calibrate): ns it adds to a restart of an idle stream after a sync (sync return to
// the next kernel's start) and to a launch call's host time. Absent when not measured. The
// what-if replay takes them out (model/whatif/replay.h, WhatIf::withoutRecorderOverhead).
inline constexpr std::string_view kRecorderRestartOverheadNs = "recorder_restart_overhead_ns";
inline constexpr std::string_view kRecorderLaunchOverheadNs = "recorder_launch_overhead_ns";
// The most either cost may be: a larger measurement was disturbed, not the recorder's.
inline constexpr int64_t kMaxRecorderOverheadNs = 100'000;
// A property of the recording machine's GPU measured by the same probe, plain: ns later a kernel
// that streams memory starts after its predecessor on its stream when at least kDeepQueueLaunches
// launches are queued there (launched, not started, the kernel included) than when fewer are (7
// or fewer and 8 or more measured on an H200: bench/RESULTS.md). Bounded by kMaxRecorderOverheadNs;
// absent when not measured. The what-if replay adds it where a change deepens a queue, takes it off
// where one empties it.
inline constexpr std::string_view kGpuDeepQueueDelayNs = "gpu_deep_queue_delay_ns";
// The recorder's in-run overhead probe (format/overhead_probe.h): the stretches in which it
// switched its own collection off to time the program without it. Absent when it did not run.
inline constexpr std::string_view kRecorderOverheadProbe = "recorder_overhead_probe";
inline constexpr int kDeepQueueLaunches = 8;
inline constexpr std::string_view kRecorderStacks = "recorder_stacks";
inline constexpr std::string_view kRecorderStackDepth = "recorder_stack_depth";
inline constexpr std::string_view kRecorderBufferBytes = "recorder_buffer_bytes";
inline constexpr std::string_view kRecorderFlushMs = "recorder_flush_ms";
inline constexpr std::string_view kRecorderClock = "recorder_clock";
inline constexpr std::string_view kRecorderFlush = "recorder_flush";
// The benchmarks' ablations the recorder ran with (RecorderExperiments::text, as
// STALLSCOPE_EXPERIMENT takes them); absent for a user's recording.
inline constexpr std::string_view kRecorderExperiments = "recorder_experiments";
// Who zeroes CUPTI's activity buffers: "recorder" (off the program's threads) or "cupti".
inline constexpr std::string_view kRecorderBufferZeroing = "recorder_buffer_zeroing";
inline constexpr std::string_view kCuptiApiVersion = "cupti_api_version";
inline constexpr std::string_view kCuptiClockVsHost = "cupti_clock_vs_host";
inline constexpr std::string_view kClockWarning = "clock_warning";
inline constexpr std::string_view kPythonVersion = "python_version";
inline constexpr std::string_view kPythonFrames = "python_frames";
inline constexpr std::string_view kStackCaptureCount = "stack_capture_count";
inline constexpr std::string_view kStackCaptureMedianNs = "stack_capture_median_ns";
inline constexpr std::string_view kStackCaptureP90Ns = "stack_capture_p90_ns";
// The same captures split by whether every PC's unwind rule was cached (warm) or some had to be
// computed (cold: a thread's first walk through code it had not unwound before).
inline constexpr std::string_view kStackCaptureWarmCount = "stack_capture_warm_count";
inline constexpr std::string_view kStackCaptureWarmMedianNs = "stack_capture_warm_median_ns";
inline constexpr std::string_view kStackCaptureColdCount = "stack_capture_cold_count";
inline constexpr std::string_view kStackCaptureColdMedianNs = "stack_capture_cold_median_ns";
// The modules whose FDE tables the recorder indexed for stack captures (recorder/fde_index.h):
// "N modules, M KiB", or "off".
inline constexpr std::string_view kFdeIndex = "fde_index";
inline constexpr std::string_view kPythonCaptureCount = "python_capture_count";
inline constexpr std::string_view kPythonCaptureMedianNs = "python_capture_median_ns";
inline constexpr std::string_view kPythonCaptureP90Ns = "python_capture_p90_ns";
// The Python sampler (host_samples): its rate ("200"; "0" when off), "on" or why it did not run,
// its ticks, the samples written and its own cost per tick (mean and largest, ns).
inline constexpr std::string_view kSampleHz = "sample_hz";
inline constexpr std::string_view kSampling = "sampling";
inline constexpr std::string_view kSamplerTicks = "sampler_ticks";
inline constexpr std::string_view kSamplerSamples = "sampler_samples";
inline constexpr std::string_view kSamplerTickMeanNs = "sampler_tick_mean_ns";
inline constexpr std::string_view kSamplerTickMaxNs = "sampler_tick_max_ns";
// The GPUs' power state while busy (recorder/gpu_power_sampler.h, NVML): "on" or why not; the
// samples taken, those of a busy GPU (utilization >= 90 %), those of these held back by the power
// cap; the enforced power limit (W); the busy samples' mean SM clock (MHz) and power (W). Read by
// the what-if savings (InsightThresholds::powerCap).
inline constexpr std::string_view kGpuPower = "gpu_power";
inline constexpr std::string_view kGpuPowerSamples = "gpu_power_samples";
inline constexpr std::string_view kGpuPowerBusySamples = "gpu_power_busy_samples";
inline constexpr std::string_view kGpuPowerCappedSamples = "gpu_power_capped_samples";
inline constexpr std::string_view kGpuPowerLimitW = "gpu_power_limit_w";
inline constexpr std::string_view kGpuPowerBusySmClockMhz = "gpu_power_busy_sm_clock_mhz";
inline constexpr std::string_view kGpuPowerBusyW = "gpu_power_busy_w";
// The lowest power of any sample (W); the steady samples (a kernel ran in every sample of the
// device's last second) and their mean power (W). The power a busier GPU would draw is projected
// from them (InsightThresholds::powerCap).
inline constexpr std::string_view kGpuPowerMinW = "gpu_power_min_w";
inline constexpr std::string_view kGpuPowerSteadySamples = "gpu_power_steady_samples";
inline constexpr std::string_view kGpuPowerSteadyW = "gpu_power_steady_w";
// NCCL's profiler plugin (collective_calls): "on", or why not ("NCCL_PROFILER_PLUGIN names
// another plugin: …"), and the launches it described.
inline constexpr std::string_view kNcclProfiler = "nccl_profiler";
inline constexpr std::string_view kNcclCollectiveCalls = "nccl_collective_calls";
// Capture control (stallscope-record --capture-range, --capture-range-end, --delay, --duration),
// written only when it was used: then the capture_intervals table holds what was recorded and
// nothing outside it was. capture_range: "none", "cuda-profiler-api" or "nvtx:NAME";
// capture_range_end: "stop" (the first range) or "repeat" (every one); the delay and duration in
// ns ("0": none); capture_steps, with --capture-steps only: "A-B", the range's occurrences recorded
// (counted from 1).
inline constexpr std::string_view kCaptureRange = "capture_range";
inline constexpr std::string_view kCaptureRangeEnd = "capture_range_end";
inline constexpr std::string_view kCaptureDelayNs = "capture_delay_ns";
inline constexpr std::string_view kCaptureDurationNs = "capture_duration_ns";
inline constexpr std::string_view kCaptureSteps = "capture_steps";
// The flight recorder (stallscope-record --ring SECONDS, --trigger-slow-step K): the seconds kept
// (ring_ns) and the slow-step factor ("0": no trigger), written with the capture meta above; the
// snapshots written during the run, one file name a line (ring_snapshots). A snapshot's own
// meta says why and when it was taken (snapshot_reason: "SIGUSR1", or "slow step: …"; snapshot_ns).
inline constexpr std::string_view kRingNs = "ring_ns";
inline constexpr std::string_view kRingSlowStepFactor = "ring_slow_step_factor";
inline constexpr std::string_view kRingSnapshots = "ring_snapshots";
inline constexpr std::string_view kSnapshotReason = "snapshot_reason";
inline constexpr std::string_view kSnapshotNs = "snapshot_ns";
inline constexpr std::string_view kDroppedRecords = "dropped_records";
inline constexpr std::string_view kDroppedHostEvents = "dropped_host_events";

// The finalize step (stallscope-symbolize).
inline constexpr std::string_view kSymbolizer = "symbolizer";
inline constexpr std::string_view kSymbolizeUnresolvedFrames = "symbolize_unresolved_frames";
inline constexpr std::string_view kSymbolizeDriverInternalStacks =
    "symbolize_driver_internal_stacks";
inline constexpr std::string_view kSymbolizeSourcesEmbedded = "symbolize_sources_embedded";

// The synthetic generator.
inline constexpr std::string_view kGenerator = "generator";
inline constexpr std::string_view kGeneratorSeed = "generator_seed";

// Imported sessions (Kineto).
inline constexpr std::string_view kImportFormat = "import_format";
inline constexpr std::string_view kImportSource = "import_source";
inline constexpr std::string_view kImportFiles = "import_files";
inline constexpr std::string_view kImportEvents = "import_events";
inline constexpr std::string_view kImportIgnoredCategories = "import_ignored_categories";
inline constexpr std::string_view kImportUnknownCategories = "import_unknown_categories";
inline constexpr std::string_view kImportUnknownEvents = "import_unknown_events";
inline constexpr std::string_view kImportConverterVersion = "import_converter_version";
// What an import left out and why, one line (e.g. the files of a folder that were skipped); the
// loader adds it to the session's warning.
inline constexpr std::string_view kImportWarnings = "import_warnings";
// The profiler's window each file was clipped to ("profiler steps 3-7", "device activity",
// "none"), the host time cut off outside it and the rows dropped wholly outside it.
inline constexpr std::string_view kImportWindow = "import_window";
inline constexpr std::string_view kImportWindowClippedNs = "import_window_clipped_ns";
inline constexpr std::string_view kImportWindowDroppedRows = "import_window_dropped_rows";
// A run merged from several sessions (model/interop/run_merge.h) whose hosts' clocks were
// aligned on collective kernels: each host's estimated shift and its error.
inline constexpr std::string_view kRunClockAlignment = "run_clock_alignment";
// "def": frames.line is the function's definition line (see python_frame_name.h).
inline constexpr std::string_view kPythonLineKind = "python_line_kind";

} // namespace stallscope::format::meta
