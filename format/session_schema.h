// The session file format: its name, version, clock, status values and finalize indexes, shared by
// the writer (recorder, generator) and the readers (model, symbolizer). The tables are described in
// session_tables.h, the enum columns' values in session_enums.h, the meta keys in session_meta.h.
#pragma once

#include "format/session_enums.h"
#include "format/session_tables.h"

#include <string_view>

namespace stallscope::format {

// Bump on any incompatible change; readers refuse files with a newer version.
inline constexpr int kFormatVersion = 1;

// The value of meta.format_name: tells a session from any other SQLite database.
inline constexpr std::string_view kFormatName = "stallscope-session";

// All timestamps are nanoseconds on the recording host's CLOCK_MONOTONIC.
inline constexpr std::string_view kClockName = "CLOCK_MONOTONIC";

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
