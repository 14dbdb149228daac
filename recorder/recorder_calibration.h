// RecorderCalibration: what the recorder itself costs on this machine, measured by
// stallscope-calibrate (calibrate_main.cu) before stallscope-record starts its target, and handed
// to the target's recorder through STALLSCOPE_CALIBRATION, which writes it into the session's meta
// (recorder_*_overhead_ns). The what-if replay takes it out of the run it replays
// (docs/insights.md, "The recorder's own cost"). The same probe measures, plain, the GPU's
// deep-queue delay (gpu_deep_queue_delay_ns): how much later a kernel starts behind a deep queue.
//
// A measurement is kept per machine boot, probe and recorder settings in
// $XDG_CACHE_HOME/stallscope/calibration (~/.cache without it): the probe runs once, not before
// every recording. The probe writes into a folder of its own under $TMPDIR (/tmp without it),
// removed when it ends.
#pragma once

#include "format/session_meta.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope::recorder {

struct RecorderCalibration {
    // The medians stallscope-calibrate measured, plain and recorded.
    int64_t restartPlainNs = 0, restartRecordedNs = 0;
    int64_t launchPlainNs = 0, launchRecordedNs = 0;
    // Plain: the median gap between queued kernels, few and many launches queued behind them.
    int64_t queueShallowGapNs = 0, queueDeepGapNs = 0;

    static constexpr int64_t kMaxOverheadNs = format::meta::kMaxRecorderOverheadNs;

    // What the recorder adds to a restart of an idle stream after a sync, and to a launch call's
    // host time: 0 when recording was as fast or faster, or more than kMaxOverheadNs slower (a
    // disturbed measurement).
    int64_t restartOverheadNs() const;
    int64_t launchOverheadNs() const;
    // Deep minus shallow queue gap, bounded the same way.
    int64_t deepQueueDelayNs() const;

    // The probe's output line ("restart_plain_ns=N restart_recorded_ns=N launch_plain_ns=N
    // launch_recorded_ns=N queue_shallow_gap_ns=N queue_deep_gap_ns=N"); nullopt when a value is
    // missing, not a count or out of range.
    static std::optional<RecorderCalibration> parse(std::string_view line);
    std::string format() const; // the same line back

    // STALLSCOPE_CALIBRATION's value ("<restart overhead ns>,<launch overhead ns>,<deep-queue
    // delay ns>") and its reading by the recorder (nullopt: absent or malformed).
    std::string environmentValue() const;
    struct Overheads {
        int64_t restartNs = 0, launchNs = 0, deepQueueDelayNs = 0;
    };
    static std::optional<Overheads> parseEnvironmentValue(std::string_view value);

    // The calibration for these recorder settings (`env`: the STALLSCOPE_* entries the target
    // gets): from the cache, else by running `probe` (cached when it succeeds). nullopt with the
    // reason in *why when the probe is missing or failed (no GPU, no CUDA). SIGINT, SIGTERM or
    // SIGHUP while the probe runs kill it, remove its files and then take their default course.
    static std::optional<RecorderCalibration>
    obtain(const std::string& probe, const std::vector<std::string>& env, std::string* why);
};

} // namespace stallscope::recorder
