// The loaded session: descriptive tables as small vectors, events as per-lane sorted columns.
// Built by SessionLoader; immutable afterwards, so the GUI and analysis threads may share it.
#pragma once

#include "format/overhead_probe.h"
#include "format/session_rows.h"
#include "model/session/event_columns.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stallscope::model {

// The descriptive tables: each row as read back (format/session_rows.h), with its row id and
// the Session indexes that its row-id references resolve to. SessionLoader refuses a file with a
// reference to a missing row, so they are -1 only in sessions built otherwise (tests).
struct ProcessInfo : format::ProcessRow {
    int64_t rowId = 0;
    // Its place in a multi-process run (rank, world size, launcher), when the file says.
    std::optional<format::ProcessRankRow> rank;
    // The recorded end, never before the start (the start while the end is unknown).
    int64_t spanEndNs() const { return std::max(startNs, endNs.value_or(startNs)); }
};

struct ThreadInfo : format::ThreadRow {
    int64_t rowId = 0;
    int32_t processIndex = -1; // into Session::processes
};

struct DeviceInfo : format::DeviceRow {
    int64_t rowId = 0;
    int32_t processIndex = -1; // into Session::processes
};

struct StreamInfo : format::StreamRow {
    int64_t rowId = 0;
    int32_t deviceIndex = -1; // into Session::devices
};

// A host thread's lane: its API calls, its blocked intervals and its ranges by depth.
struct HostLane {
    int32_t threadIndex = -1; // into Session::threads
    ApiCallColumns apiCalls;
    SyncColumns syncs;
    std::vector<RangeColumns> rangesByDepth;
    SampleColumns samples; // the Python sampler's runs (format v3)
};

// A GPU stream's lane.
struct StreamLane {
    int32_t streamIndex = -1; // into Session::streams
    KernelColumns kernels;
    TransferColumns memcpys;
    TransferColumns memsets;
};

// A stretch that a recording with capture control recorded (format v5's capture_intervals:
// stallscope-record --delay, --duration, --capture-range): its process, its times on the session's
// clock and why it opened and closed (format::capture_reason).
struct CaptureInterval {
    int32_t processIndex = -1; // into Session::processes
    int64_t startNs = 0;
    // A row without an end (the recorder was still capturing at the file's last commit: a killed
    // recording) ends at the session's end, closed by "".
    int64_t endNs = 0;
    std::string openedBy;
    std::string closedBy;
};

// A stretch of the session's time, [startNs, endNs).
struct TimeSpan {
    int64_t startNs = 0;
    int64_t endNs = 0;
    bool operator==(const TimeSpan&) const = default;
};

// One file of a run opened as one session (model/interop/run_merge.h), and how its rows were
// moved into the session: row ids past the previous files' and times onto the run's clock
// (`moves`), one string id per text (`stringIds`). SessionDatabase reads stacks, sources and
// kernel details from the file through them.
struct SessionPart {
    std::string path;
    format::RowMoves moves;
    std::vector<uint32_t> stringIds; // the file's string id -> the session's
};

class Session {
public:
    std::string path; // the session file; a run's folder or first file (see parts)
    std::map<std::string, std::string, std::less<>> meta; // keys: format/session_meta.h
    std::string status;  // meta.status: "complete", "incomplete" or "recording"
    std::string warning; // non-empty when the session opened but is not complete
    int formatVersion = 0;

    std::vector<ProcessInfo> processes;
    std::vector<ThreadInfo> threads;
    std::vector<DeviceInfo> devices;
    std::vector<StreamInfo> streams;
    std::vector<std::string> strings; // index = strings.id; index 0 is ""

    std::vector<HostLane> hostLanes;     // ordered by process, then tid
    std::vector<StreamLane> streamLanes; // ordered by device, then stream id

    // What NCCL's profiler plugin said about the collective each NCCL kernel carries (format v4),
    // by the kernel's row id; none for other kernels or recordings without the plugin.
    std::unordered_map<uint32_t, format::CollectiveCallRow> collectiveCalls;
    const format::CollectiveCallRow* collectiveCall(uint32_t kernelRowId) const {
        const auto found = collectiveCalls.find(kernelRowId);
        return found == collectiveCalls.end() ? nullptr : &found->second;
    }

    // Capture control: whether the recording covered only captureIntervals (its meta names a
    // capture_range); false: everything from each process's first CUDA call to its end.
    bool captureControlled = false;
    std::vector<CaptureInterval> captureIntervals; // by start, then process
    // The recorder's in-run overhead probe (meta recorder_overhead_probe): the stretches in which
    // it recorded nothing but the calls of one API, to time the program without itself. A
    // single recording's only (a run's files keep theirs).
    std::optional<format::OverheadProbeRecord> overheadProbe;
    // The stretches of [startNs, endNs) that were not recorded, in order, none overlapping: those
    // no process's capture interval covers (with capture control) and the overhead probe's.
    std::vector<TimeSpan> notRecorded() const;
    // How much of [fromNs, toNs) notRecorded() covers.
    int64_t notRecordedNsWithin(int64_t fromNs, int64_t toNs) const;

    format::EventCounts counts;
    int64_t hostSamples = 0; // the Python sampler's samples over every lane (not its rows)
    int64_t startNs = 0;     // earliest event start (or process start)
    int64_t endNs = 0;       // latest event end (or process end)
    int64_t droppedRecords = 0;

    // Event rows left out because both their times are 0 (recorders before issue 14 wrote the
    // activity records CUPTI cut short at teardown that way).
    int64_t untimedEvents = 0;
    // A run's files, in its order; empty when the session is the one file at `path`.
    std::vector<SessionPart> parts;
    // The column cache's key for this session's file (column_cache.h), when its columns were read
    // from the tables and may be cached; empty otherwise (read from the cache, a recording still
    // being written, the cache not asked for).
    std::string columnCacheKey;

    int64_t durationNs() const { return endNs - startNs; }
    // The files the session was read from: its parts, else `path`.
    std::vector<std::string> files() const;
    const std::string& string(uint32_t id) const;
    std::string metaValue(std::string_view key) const;
    // A meta value that is a non-negative decimal count; nullopt when absent or anything else.
    std::optional<int64_t> metaCount(std::string_view key) const;
    // Per process: whether any of its threads recorded an API call (a light recording,
    // stallscope-record --mode light, has none).
    std::vector<bool> processesWithApiCalls() const;
    // "rank 1", "pid 4242", with " · host" when the session spans hosts; "" for the only
    // process of a single-process session.
    std::string processLabel(int32_t processIndex) const;
    std::string threadLabel(const ThreadInfo& thread) const;
    std::string streamLabel(const StreamInfo& stream) const;
    // Bytes held by the event columns (for the memory benchmark).
    size_t eventMemoryBytes() const;
};

} // namespace stallscope::model
