// CaptureControl: when a recording with capture control (CaptureSettings, recorder_config.h)
// records. The delay, the duration and the capture range's triggers (cudaProfilerStart/Stop, the
// named NVTX ranges) move its state; a change that starts or stops recording comes back as a
// Transition with its reason (format::capture_reason), which CaptureDriver applies: CUPTI's
// activities and callbacks on or off, an interval opened or closed in the session
// (capture_driver.cpp). Pure state: no CUPTI, no clock, no lock (CaptureDriver serializes calls).
//
// Recording happens while every condition holds: the delay has passed, the range is open (always,
// without a range), the duration since recording first began has not passed, and, for a range
// that does not repeat, the first recorded range has not ended. With --capture-steps A-B the
// range's occurrences are steps, counted from the recorder's start whatever else holds: only
// steps A to B are recorded, and nothing once step B has ended.
#pragma once

#include "recorder/recorder_config.h"

#include <cstdint>
#include <optional>
#include <string>

namespace stallscope::recorder {

class CaptureControl {
public:
    struct Transition {
        bool open = false; // recording began (true) or stopped
        int64_t atNs = 0;
        std::string reason; // a format::capture_reason
    };

    CaptureControl() = default;
    // `startNs`: when the recorder started (the delay counts from it). Not yet recording: the
    // first advance(startNs) opens at once when nothing holds it back.
    CaptureControl(const CaptureSettings& settings, int64_t startNs);

    const CaptureSettings& settings() const { return m_settings; }
    bool capturing() const { return m_capturing; }
    // Nothing will be recorded any more: the duration passed, the first range of a range that
    // does not repeat ended, or the recording ended.
    bool finished() const { return m_expired || m_rangesDone || m_ended; }
    // When advance() next changes something; INT64_MAX when nothing waits for a time.
    int64_t nextDeadlineNs() const;

    // The time is now nowNs: the delay may have passed, the duration run out.
    std::optional<Transition> advance(int64_t nowNs);
    // cudaProfilerStart/cuProfilerStart and their stops (idempotent: the runtime's call makes the
    // driver's too).
    std::optional<Transition> profilerStarted(int64_t nowNs);
    std::optional<Transition> profilerStopped(int64_t nowNs);
    // A range named settings().nvtxName began or ended, on any thread (nested ones counted).
    std::optional<Transition> nvtxRangeBegan(int64_t nowNs);
    std::optional<Transition> nvtxRangeEnded(int64_t nowNs);
    // The recording ends: an open interval closes ("end"), and nothing opens after.
    std::optional<Transition> end(int64_t nowNs);

private:
    // The program is inside a range (always, without one).
    bool programInRange() const;
    // ... and, with steps, inside one of the steps recorded.
    bool rangeOpen() const;
    // A range began while none was open: the next step.
    void stepBegan() { ++m_step; }
    // The transition, if any, to what the conditions now want, for `reason`.
    std::optional<Transition> update(int64_t nowNs, const std::string& reason);
    // A range's end stopped recording: for a range that does not repeat, for good.
    std::optional<Transition> rangeClosed(int64_t nowNs, const std::string& reason);

    CaptureSettings m_settings;
    int64_t m_startNs = 0;
    int64_t m_firstOpenNs = -1; // when recording first began (the duration counts from it)
    bool m_capturing = false;
    bool m_armed = false; // the delay passed
    bool m_expired = false;
    bool m_rangesDone = false;
    bool m_ended = false;
    bool m_profilerOn = false;
    int64_t m_openNvtxRanges = 0;
    int64_t m_step = 0; // the range occurrences that began so far (--capture-steps)
};

} // namespace stallscope::recorder
