// Plain row types for writing a session. One struct per table in session_schema.h; ids are the
// SQLite row ids the writer hands back. Times are nanoseconds on the host's CLOCK_MONOTONIC.
#pragma once

#include "format/session_schema.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stallscope::format {

struct ProcessRow {
    int64_t pid = 0;
    std::string host;
    std::string command;
    int64_t startNs = 0;
    std::optional<int64_t> endNs;
    std::optional<int64_t> exitCode;
};

// A process's place in a multi-process run (torchrun, mpirun, DeepSpeed: one process per GPU).
// Format v2; only processes that know their rank have a row.
struct ProcessRankRow {
    int64_t processId = 0;
    int64_t rank = 0;
    std::optional<int64_t> localRank;
    std::optional<int64_t> worldSize;
    std::string launcher; // "torchrun", "mpirun", "deepspeed", ... or "" when not known
    // Added to this process's recorded times when its session was merged from another host
    // (the estimated clock skew); 0 on the host whose clock the run uses.
    int64_t clockShiftNs = 0;
};

struct ThreadRow {
    int64_t processId = 0;
    int64_t tid = 0;
    std::string name;
};

struct DeviceRow {
    int64_t processId = 0;
    int64_t deviceIndex = 0;
    std::string name;
    std::string uuid;
    int64_t computeMajor = 0;
    int64_t computeMinor = 0;
    int64_t smCount = 0;
    int64_t globalMemoryBytes = 0;
};

struct StreamRow {
    int64_t deviceId = 0;
    int64_t contextId = 0;
    int64_t streamId = 0; // CUPTI's stream id within the context
    bool isDefault = false;
    int64_t priority = 0;
};

struct ApiCallRow {
    int64_t threadId = 0;
    ApiDomain domain = ApiDomain::Runtime;
    int64_t cbid = 0;
    int64_t nameId = 0;
    int64_t startNs = 0;
    int64_t endNs = 0;
    int64_t correlationId = 0;
    int64_t returnCode = 0;
};

struct KernelRow {
    int64_t streamId = 0;
    int64_t nameId = 0;
    int64_t startNs = 0;
    int64_t endNs = 0;
    int64_t correlationId = 0;
    int32_t grid[3] = {1, 1, 1};
    int32_t block[3] = {1, 1, 1};
    int32_t registersPerThread = 0;
    int32_t staticSharedBytes = 0;
    int32_t dynamicSharedBytes = 0;
};

struct MemcpyRow {
    int64_t streamId = 0;
    int64_t startNs = 0;
    int64_t endNs = 0;
    int64_t correlationId = 0;
    CopyKind copyKind = CopyKind::Unknown;
    MemoryKind srcKind = MemoryKind::Unknown;
    MemoryKind dstKind = MemoryKind::Unknown;
    int64_t bytes = 0;
    bool isAsync = false;
};

struct MemsetRow {
    int64_t streamId = 0;
    int64_t startNs = 0;
    int64_t endNs = 0;
    int64_t correlationId = 0;
    int64_t value = 0;
    int64_t bytes = 0;
    MemoryKind dstKind = MemoryKind::Unknown;
    bool isAsync = false;
};

struct SyncRow {
    int64_t threadId = 0;
    SyncKind kind = SyncKind::Stream;
    int64_t startNs = 0;
    int64_t endNs = 0;
    int64_t correlationId = 0;
    std::optional<int64_t> streamId; // session stream row id, when the sync names one
    std::optional<int64_t> eventId;  // CUPTI event id, for event syncs and stream-wait-event
    std::optional<int64_t> stackId;
};

struct CudaEventRow {
    int64_t streamId = 0;
    int64_t eventId = 0;
    int64_t correlationId = 0;
    int64_t recordNs = 0;
};

struct RangeRow {
    int64_t threadId = 0;
    RangeKind kind = RangeKind::NvtxPushPop;
    int64_t nameId = 0;
    int64_t startNs = 0;
    int64_t endNs = 0;
    int64_t depth = 0;
};

struct ModuleRow {
    int64_t processId = 0;
    std::string path;
    int64_t loadBias = 0;
    int64_t startAddress = 0;
    int64_t endAddress = 0;
    std::string buildId; // hex
    int64_t loadedNs = 0;
};

// A native frame is an address (symbolized later); a Python frame carries file/function/line.
struct FrameRow {
    FrameKind kind = FrameKind::Native;
    std::optional<int64_t> address;
    std::optional<int64_t> moduleId;
    std::optional<std::string> function;
    std::optional<std::string> file;
    std::optional<int64_t> line;
    std::optional<int64_t> column;
};

// A run of equal Python stack samples of one thread (format v3; see columns::kHostSamples).
struct HostSampleRow {
    int64_t threadId = 0;
    int64_t startNs = 0; // the first sample
    int64_t endNs = 0;   // the last
    int64_t samples = 1;
    int64_t stackId = 0;
};

// The NCCL call(s) one kernel launch carries (format v4; see columns::kCollectiveCalls).
struct CollectiveCallRow {
    int64_t processId = 0;
    int64_t correlationId = 0;
    std::string function; // "AllReduce"; several joined by "+" when a group mixes them
    std::string datatype; // NCCL's name, "ncclBfloat16"; "" when not known
    int64_t count = 0;    // elements, over all the calls
    std::optional<int64_t> bytes;
    int64_t calls = 1;
};

// A stretch a recording with capture control recorded (format v5; see columns::kCaptureIntervals).
struct CaptureIntervalRow {
    int64_t processId = 0;
    int64_t startNs = 0;
    std::optional<int64_t> endNs; // none while capturing (SessionWriter::endCaptureInterval)
    std::string openedBy;         // a capture_reason (below)
    std::string closedBy;         // a capture_reason; "" while capturing
};

struct SourceRow {
    std::string path;
    std::string sha256;
    int64_t sizeBytes = 0;
    bool truncated = false;
    std::string text;
};

// How many rows each timeline event table holds (cuda_events are markers, not timeline events):
// what the loader finds in a session and what the synthetic generator wrote into one.
struct EventCounts {
    int64_t apiCalls = 0;
    int64_t syncs = 0;
    int64_t kernels = 0;
    int64_t memcpys = 0;
    int64_t memsets = 0;
    int64_t ranges = 0;
    int64_t total() const { return apiCalls + syncs + kernels + memcpys + memsets + ranges; }
    bool operator==(const EventCounts&) const = default;
};

struct DroppedRow {
    std::optional<int64_t> processId;
    int64_t atNs = 0;
    std::string source; // one of dropped_source (below)
    int64_t count = 0;
};

// Why records or events were lost: the `dropped.source` values (docs/session-format.md).
namespace dropped_source {
inline constexpr const char* kActivityBuffer = "cupti-activity-buffer"; // CUPTI had no buffer
inline constexpr const char* kHostEventRing = "host-event-ring"; // a thread's host-event ring full
// Activity records with a zero start or end (cut short by teardown) or ending before they start:
// never written as events.
inline constexpr const char* kIncompleteRecord = "incomplete-record";
inline constexpr const char* kEndBeforeStart = "end-before-start";
} // namespace dropped_source

// Why a capture interval opened or closed: capture_intervals.opened_by and .closed_by
// (docs/session-format.md).
namespace capture_reason {
inline constexpr const char* kStart = "start";       // the recording began (--duration alone)
inline constexpr const char* kDelay = "delay";       // --delay's seconds had passed
inline constexpr const char* kDuration = "duration"; // --duration's seconds had passed
inline constexpr const char* kProfilerStart = "cudaProfilerStart"; // or cuProfilerStart
inline constexpr const char* kProfilerStop = "cudaProfilerStop";   // or cuProfilerStop
// "nvtx:NAME": a range named NAME began (opened_by) or ended (closed_by).
inline constexpr std::string_view kNvtxPrefix = "nvtx:";
inline constexpr const char* kEnd = "end"; // the recording ended while capturing
// The flight recorder (stallscope-record --ring): what ran before was discarded as it aged
// (opened_by), and a snapshot of the ring written while the recording went on ends here
// (closed_by).
inline constexpr const char* kRing = "ring";
inline constexpr const char* kSnapshot = "snapshot";
} // namespace capture_reason

} // namespace stallscope::format
