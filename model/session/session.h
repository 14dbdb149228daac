// The loaded session: descriptive tables as small vectors, events as per-lane sorted columns.
// Built by SessionLoader; immutable afterwards, so the GUI and analysis threads may share it.
#pragma once

#include "model/session/event_columns.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope::model {

struct ProcessInfo {
    int64_t rowId = 0;
    int64_t pid = 0;
    std::string host;
    std::string command;
    int64_t startNs = 0;
    int64_t endNs = 0; // 0 when unknown
    bool hasExitCode = false;
    int64_t exitCode = 0;
};

struct ThreadInfo {
    int64_t rowId = 0;
    int32_t processIndex = -1; // into Session::processes
    int64_t tid = 0;
    std::string name;
};

struct DeviceInfo {
    int64_t rowId = 0;
    int32_t processIndex = -1;
    int64_t deviceIndex = 0;
    std::string name;
    std::string uuid;
    int64_t computeMajor = 0;
    int64_t computeMinor = 0;
    int64_t smCount = 0;
    int64_t globalMemoryBytes = 0;
};

struct StreamInfo {
    int64_t rowId = 0;
    int32_t deviceIndex = -1; // into Session::devices
    int64_t contextId = 0;
    int64_t streamId = 0;
    bool isDefault = false;
};

// A host thread's lane: its API calls, its blocked intervals and its ranges by depth.
struct HostLane {
    int32_t threadIndex = -1; // into Session::threads
    ApiCallColumns apiCalls;
    SyncColumns syncs;
    std::vector<RangeColumns> rangesByDepth;
};

// A GPU stream's lane.
struct StreamLane {
    int32_t streamIndex = -1; // into Session::streams
    KernelColumns kernels;
    TransferColumns memcpys;
    TransferColumns memsets;
};

struct EventCounts {
    int64_t apiCalls = 0;
    int64_t syncs = 0;
    int64_t kernels = 0;
    int64_t memcpys = 0;
    int64_t memsets = 0;
    int64_t ranges = 0;
    int64_t total() const { return apiCalls + syncs + kernels + memcpys + memsets + ranges; }
};

class Session {
public:
    std::string path;
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

    EventCounts counts;
    int64_t startNs = 0; // earliest event start (or process start)
    int64_t endNs = 0;   // latest event end (or process end)
    int64_t droppedRecords = 0;

    int64_t durationNs() const { return endNs - startNs; }
    const std::string& string(uint32_t id) const;
    std::string metaValue(std::string_view key) const;
    std::string threadLabel(const ThreadInfo& thread) const;
    std::string streamLabel(const StreamInfo& stream) const;
    // Bytes held by the event columns (for the memory benchmark).
    size_t eventMemoryBytes() const;
};

} // namespace stallscope::model
