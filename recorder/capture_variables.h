// The environment variables that carry capture control (CaptureSettings, recorder_config.h) to the
// program's recorder; the calibration probe (recorder_calibration.cpp) clears them, since it
// measures the recorder while it records everything.
#pragma once

#include <string_view>

namespace stallscope::recorder {

// The variables that carry CaptureSettings to the program's recorder
// (CaptureSettings::environment).
inline constexpr std::string_view kCaptureRangeVariable = "STALLSCOPE_CAPTURE_RANGE";
inline constexpr std::string_view kCaptureRangeEndVariable = "STALLSCOPE_CAPTURE_RANGE_END";
inline constexpr std::string_view kDelayVariable = "STALLSCOPE_DELAY";
inline constexpr std::string_view kDurationVariable = "STALLSCOPE_DURATION";
inline constexpr std::string_view kCaptureStepsVariable = "STALLSCOPE_CAPTURE_STEPS";
// The flight recorder (stallscope-record --ring, --trigger-slow-step).
inline constexpr std::string_view kRingVariable = "STALLSCOPE_RING";
inline constexpr std::string_view kSlowStepVariable = "STALLSCOPE_TRIGGER_SLOW_STEP";
inline constexpr std::string_view kCaptureVariables[] = {
    kCaptureRangeVariable, kCaptureRangeEndVariable, kDelayVariable,
    kDurationVariable,     kCaptureStepsVariable,    kRingVariable,
    kSlowStepVariable};

} // namespace stallscope::recorder
