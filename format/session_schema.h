// The session file format: its name, version, clock, status values and finalize indexes, shared by
// the writer (recorder, generator) and the readers (model, symbolizer). The tables are described in
// session_tables.h, the enum columns' values in session_enums.h, the meta keys in session_meta.h.
#pragma once

#include "format/session_enums.h"
#include "format/session_tables.h"

#include <cstdint>
#include <limits>
#include <string_view>

namespace stallscope::format {

// Bump on any incompatible change; readers refuse files with a newer version.
// v2 added the process_ranks table (multi-process runs), v3 the host_samples table (the Python
// sampler), v4 collective_calls (NCCL's sizes), v5 capture_intervals (capture control); files of
// every older version open unchanged.
inline constexpr int kFormatVersion = 5;

// The value of meta.format_name: tells a session from any other SQLite database.
inline constexpr std::string_view kFormatName = "stallscope-session";

// All timestamps are nanoseconds on the recording host's CLOCK_MONOTONIC.
inline constexpr std::string_view kClockName = "CLOCK_MONOTONIC";

// The accepted range of every time (*_ns columns): 0 <= t < 2^62 ns, 146 years of uptime. Readers
// reject a row with a time outside it, so that the difference of two times, or a time plus
// another, never overflows.
inline constexpr int64_t kTimeLimitNs = int64_t(1) << 62;
constexpr bool isAcceptedTime(int64_t ns) {
    return ns >= 0 && ns < kTimeLimitNs;
}

// Sums of many durations or sizes read from a file (the blocked time of all syncs of a site,
// where accepted times overlap; the bytes of its copies) can still pass int64_t's range: such
// sums saturate at its limits instead.
constexpr int64_t addSaturated(int64_t a, int64_t b) {
    int64_t sum = 0;
    if (__builtin_add_overflow(a, b, &sum))
        return b < 0 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
    return sum;
}

// meta.status values.
inline constexpr std::string_view kStatusRecording = "recording";
inline constexpr std::string_view kStatusComplete = "complete";
inline constexpr std::string_view kStatusIncomplete = "incomplete";

// Added when a session is finalized; a reader never relies on them being present. Only small
// tables are indexed: the model joins events by correlation id in memory, and indexing millions of
// API calls would cost the writer a third of its time.
inline constexpr std::string_view kIndexSql = R"SQL(
CREATE INDEX IF NOT EXISTS syncs_by_stack ON syncs(stack_id);
CREATE INDEX IF NOT EXISTS stack_frames_by_frame ON stack_frames(frame_id);
)SQL";

// Finalize indexes that earlier v1 writers added and the current one no longer does: never
// created now, but part of the schema a reader accepts (format/session_schema_check.h).
inline constexpr std::string_view kFormerIndexSql = R"SQL(
CREATE INDEX IF NOT EXISTS api_calls_by_correlation ON api_calls(correlation_id);
CREATE INDEX IF NOT EXISTS kernels_by_correlation ON kernels(correlation_id);
)SQL";

} // namespace stallscope::format
