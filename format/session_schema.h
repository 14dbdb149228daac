// The session file schema: the ONE definition shared by the writer (recorder, generator) and the
// reader (model). docs/session-format.md documents every table and column; keep both in step.
#pragma once

#include <array>
#include <cstdint>
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

// syncs.kind: what made the host wait. Values are stable (stored in files).
enum class SyncKind : int {
    Stream = 1,          // cudaStreamSynchronize / cuStreamSynchronize
    Device = 2,          // cudaDeviceSynchronize / cuCtxSynchronize
    Event = 3,           // cudaEventSynchronize / cuEventSynchronize
    StreamWaitEvent = 4, // cudaStreamWaitEvent (does not block the host; recorded for the link)
    PageableCopy = 5,    // implicit: device->pageable host copy that blocks the host
    BlockingCopy = 6,    // implicit: synchronous cudaMemcpy (not device->pageable)
    BlockingMemset = 7,  // implicit: synchronous memset
    BlockingAlloc = 8,   // implicit: cudaMalloc/cudaFree that waited for the device
};
inline constexpr int kSyncKindMax = 8;

// api_calls.domain.
enum class ApiDomain : int { Runtime = 1, Driver = 2 };

// memcpys.copy_kind (same numbering as CUpti_ActivityMemcpyKind).
enum class CopyKind : int {
    Unknown = 0,
    HtoD = 1,
    DtoH = 2,
    HtoA = 3,
    AtoH = 4,
    AtoA = 5,
    AtoD = 6,
    DtoA = 7,
    DtoD = 8,
    HtoH = 9,
    PtoP = 10
};

// memcpys.src_kind / dst_kind / memsets.dst_kind (same numbering as CUpti_ActivityMemoryKind).
enum class MemoryKind : int {
    Unknown = 0,
    Pageable = 1,
    Pinned = 2,
    Device = 3,
    Array = 4,
    Managed = 5,
    DeviceStatic = 6,
    ManagedStatic = 7
};

// ranges.kind.
enum class RangeKind : int { NvtxPushPop = 1, NvtxStartEnd = 2, Scope = 3 };

// frames.kind.
enum class FrameKind : int { Native = 1, Python = 2 };

// The tables every session must have; the reader checks each exists.
inline constexpr std::array<std::string_view, 21> kRequiredTables = {
    "meta",    "processes",     "threads", "devices",      "streams",     "strings", "api_calls",
    "kernels", "memcpys",       "memsets", "syncs",        "cuda_events", "ranges",  "modules",
    "frames",  "frame_inlines", "stacks",  "stack_frames", "sources",     "dropped", "diagnostics",
};

// Created by the writer in one transaction. No secondary indexes while recording (writes must be
// fast); finalizeIndexes() adds them when the session is closed.
inline constexpr std::string_view kSchemaSql = R"SQL(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE processes (
    id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, host TEXT NOT NULL, command TEXT NOT NULL,
    start_ns INTEGER NOT NULL, end_ns INTEGER, exit_code INTEGER);
CREATE TABLE threads (
    id INTEGER PRIMARY KEY, process_id INTEGER NOT NULL REFERENCES processes(id),
    tid INTEGER NOT NULL, name TEXT NOT NULL DEFAULT '');
CREATE TABLE devices (
    id INTEGER PRIMARY KEY, process_id INTEGER NOT NULL REFERENCES processes(id),
    device_index INTEGER NOT NULL, name TEXT NOT NULL, uuid TEXT NOT NULL DEFAULT '',
    compute_major INTEGER NOT NULL DEFAULT 0, compute_minor INTEGER NOT NULL DEFAULT 0,
    sm_count INTEGER NOT NULL DEFAULT 0, global_memory_bytes INTEGER NOT NULL DEFAULT 0);
CREATE TABLE streams (
    id INTEGER PRIMARY KEY, device_id INTEGER NOT NULL REFERENCES devices(id),
    context_id INTEGER NOT NULL, stream_id INTEGER NOT NULL,
    is_default INTEGER NOT NULL DEFAULT 0, priority INTEGER NOT NULL DEFAULT 0);
CREATE TABLE strings (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
CREATE TABLE api_calls (
    id INTEGER PRIMARY KEY, thread_id INTEGER NOT NULL, domain INTEGER NOT NULL,
    cbid INTEGER NOT NULL, name_id INTEGER NOT NULL, start_ns INTEGER NOT NULL,
    end_ns INTEGER NOT NULL, correlation_id INTEGER NOT NULL, return_code INTEGER NOT NULL DEFAULT 0);
CREATE TABLE kernels (
    id INTEGER PRIMARY KEY, stream_id INTEGER NOT NULL, name_id INTEGER NOT NULL,
    start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, correlation_id INTEGER NOT NULL,
    grid_x INTEGER NOT NULL, grid_y INTEGER NOT NULL, grid_z INTEGER NOT NULL,
    block_x INTEGER NOT NULL, block_y INTEGER NOT NULL, block_z INTEGER NOT NULL,
    registers_per_thread INTEGER NOT NULL, static_shared_bytes INTEGER NOT NULL,
    dynamic_shared_bytes INTEGER NOT NULL);
CREATE TABLE memcpys (
    id INTEGER PRIMARY KEY, stream_id INTEGER NOT NULL, start_ns INTEGER NOT NULL,
    end_ns INTEGER NOT NULL, correlation_id INTEGER NOT NULL, copy_kind INTEGER NOT NULL,
    src_kind INTEGER NOT NULL, dst_kind INTEGER NOT NULL, bytes INTEGER NOT NULL,
    is_async INTEGER NOT NULL);
CREATE TABLE memsets (
    id INTEGER PRIMARY KEY, stream_id INTEGER NOT NULL, start_ns INTEGER NOT NULL,
    end_ns INTEGER NOT NULL, correlation_id INTEGER NOT NULL, value INTEGER NOT NULL,
    bytes INTEGER NOT NULL, dst_kind INTEGER NOT NULL, is_async INTEGER NOT NULL);
CREATE TABLE syncs (
    id INTEGER PRIMARY KEY, thread_id INTEGER NOT NULL, kind INTEGER NOT NULL,
    start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, correlation_id INTEGER NOT NULL,
    stream_id INTEGER, event_id INTEGER, stack_id INTEGER);
CREATE TABLE cuda_events (
    id INTEGER PRIMARY KEY, stream_id INTEGER NOT NULL, event_id INTEGER NOT NULL,
    correlation_id INTEGER NOT NULL, record_ns INTEGER NOT NULL);
CREATE TABLE ranges (
    id INTEGER PRIMARY KEY, thread_id INTEGER NOT NULL, kind INTEGER NOT NULL,
    name_id INTEGER NOT NULL, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL,
    depth INTEGER NOT NULL);
CREATE TABLE modules (
    id INTEGER PRIMARY KEY, process_id INTEGER NOT NULL, path TEXT NOT NULL,
    load_bias INTEGER NOT NULL, start_address INTEGER NOT NULL, end_address INTEGER NOT NULL,
    build_id TEXT NOT NULL DEFAULT '', loaded_ns INTEGER NOT NULL);
CREATE TABLE frames (
    id INTEGER PRIMARY KEY, kind INTEGER NOT NULL, address INTEGER, module_id INTEGER,
    function TEXT, file TEXT, line INTEGER, column INTEGER,
    symbolized INTEGER NOT NULL DEFAULT 0, is_user INTEGER);
CREATE TABLE frame_inlines (
    frame_id INTEGER NOT NULL, depth INTEGER NOT NULL, function TEXT NOT NULL,
    file TEXT NOT NULL DEFAULT '', line INTEGER NOT NULL DEFAULT 0,
    column INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (frame_id, depth)) WITHOUT ROWID;
CREATE TABLE stacks (
    id INTEGER PRIMARY KEY, hash INTEGER NOT NULL, depth INTEGER NOT NULL);
CREATE TABLE stack_frames (
    stack_id INTEGER NOT NULL, position INTEGER NOT NULL, frame_id INTEGER NOT NULL,
    PRIMARY KEY (stack_id, position)) WITHOUT ROWID;
CREATE TABLE sources (
    id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, sha256 TEXT NOT NULL,
    size_bytes INTEGER NOT NULL, truncated INTEGER NOT NULL DEFAULT 0, text TEXT NOT NULL);
CREATE TABLE dropped (
    id INTEGER PRIMARY KEY, process_id INTEGER, at_ns INTEGER NOT NULL,
    source TEXT NOT NULL, count INTEGER NOT NULL);
CREATE TABLE diagnostics (
    id INTEGER PRIMARY KEY, at_ns INTEGER NOT NULL, severity TEXT NOT NULL, message TEXT NOT NULL);
)SQL";

// Added when a session is finalized; a reader never relies on them being present. Only small
// tables are indexed: the model joins events by correlation id in memory, and indexing millions of
// API calls would cost the writer a third of its time.
inline constexpr std::string_view kIndexSql = R"SQL(
CREATE INDEX IF NOT EXISTS syncs_by_stack ON syncs(stack_id);
CREATE INDEX IF NOT EXISTS stack_frames_by_frame ON stack_frames(frame_id);
)SQL";

} // namespace stallscope::format
