// Human-readable durations, sizes and counts, shared by the summary, the analysis text and the
// views (their own header: most users need nothing else of session_summary.h).
#pragma once

#include <cstdint>
#include <string>

namespace stallscope::model {

std::string formatDuration(int64_t nanoseconds); // "1.25 ms", "73.6 s", "850 ns"
std::string formatBytes(int64_t bytes);          // "1.5 MiB"
std::string formatCount(int64_t count);          // "10,000,000"

} // namespace stallscope::model
