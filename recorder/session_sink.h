// SessionSink: the writer-thread side. Turns HostEvents (from target threads) and ActivityBatches
// (from CUPTI) into session rows: joins syncs and blocking copies to the stack captured at API
// entry by correlation id, interns stacks by hash, maps CUPTI ids (device, context, stream, tid) to
// rows, keeps the module table current; joins the Python sampler's samples of a thread that saw
// the same stack at consecutive ticks into one host_samples row. Single-threaded by design: only
// the writer thread calls it.
#pragma once

#include "recorder/activity_record.h"
#include "recorder/capture_stats.h"
#include "recorder/flight_recorder.h"
#include "recorder/host_event.h"
#include "recorder/launch_environment.h"
#include "recorder/module_table.h"
#include "recorder/nvtx_ranges.h"
#include "recorder/stack_interner.h"

#include "format/session_writer.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace stallscope::recorder {

class SessionSink {
public:
    struct Stats {
        format::EventCounts events; // rows written to each timeline event table
        int64_t stacks = 0, stackCaptures = 0, droppedRecords = 0, droppedHostEvents = 0;
        int64_t unmatchedSyncRecords = 0;
        int64_t hostSamples = 0, hostSampleRows = 0; // the sampler's samples, and their runs
        int64_t collectiveCalls = 0; // collective_calls rows: NCCL launches its plugin described
    };

    explicit SessionSink(format::SessionWriter* writer);

    void beginProcess(int64_t pid, const std::string& host, const std::string& command,
                      int64_t startNs);
    // The process's rank row (when the launcher gave it a rank) and a diagnostic for each launcher
    // variable that was set but ignored.
    void setLaunch(const LaunchEnvironment& launch, int64_t atNs);
    // Whether CUPTI's SYNCHRONIZATION records come (RecorderConfig::wantsSyncRecords): then a sync
    // row joins the record (its wait, stream and event) to the callback's stack; otherwise the
    // callback's host event alone is the sync row.
    void setSyncRecords(bool enabled) { m_syncRecords = enabled; }
    // The flight recorder's step clock (flight_recorder.h) hears of every sync and blocking copy
    // with a stack as its host event comes in.
    void watchSteps(StepClock* clock) { m_stepClock = clock; }
    void consumeHostEvent(const HostEvent& event);
    void consumeBatch(const ActivityBatch& batch);
    void addDropped(int64_t atNs, const char* source, int64_t count);
    // Emits joins still waiting for their other half, and sample runs begun, when older than
    // maxAgeNs (all when 0).
    void expirePending(int64_t nowNs, int64_t maxAgeNs);
    // Capture control: a captured interval begins, or ends (nothing
    // when none is open). At its end the NVTX ranges still open are written as ending there:
    // their ends are not recorded (call after the records from before the end were consumed).
    void captureOpened(int64_t atNs, const std::string& reason);
    void captureClosed(int64_t atNs, const std::string& reason);
    bool capturing() const { return m_captureRow != 0; }
    // Picks up modules loaded since the last call (cheap when none were).
    void refreshModules(int64_t nowNs);
    // Writes the statistics into meta and ends the process row.
    void finishProcess(int64_t endNs);

    const Stats& stats() const { return m_stats; }
    int64_t processId() const { return m_processId; }
    // Median / 90th percentile of the stack capture times seen, ns (0 when none).
    int64_t captureMedianNs() const { return m_nativeCapture.percentile(0.5); }
    int64_t capturePercentileNs(double fraction) const {
        return m_nativeCapture.percentile(fraction);
    }
    const CaptureStats& pythonCapture() const { return m_pythonCapture; }
    const ModuleTable& modules() const { return m_modules; }

private:
    struct PendingHost {
        int64_t threadId = 0;
        uint8_t apiClass = 0;
        int64_t startNs = 0, endNs = 0;
        int64_t stackId = -1;
        int64_t seenNs = 0;
        uint32_t correlationId = 0;
        uint32_t contextId = 0;
        uint32_t streamId = HostEvent::kNoStream;
        uint32_t deviceId = HostEvent::kNoStream;
    };
    struct PendingCopy {
        uint8_t copyKind = 0, dstKind = 0, srcKind = 0;
        int64_t streamRow = -1;
        int64_t seenNs = 0;
        uint32_t correlationId = 0;
    };
    int64_t threadRow(int32_t tid);
    int64_t deviceRow(uint32_t deviceId);
    int64_t streamRow(uint32_t contextId, uint32_t streamId, uint32_t deviceId, bool deviceKnown);
    int64_t moduleRowFor(uintptr_t pc);
    int64_t apiName(uint8_t domain, uint32_t cbid);
    void emitSync(const PendingHost* host, const ActivityRecord* record, int64_t fallbackThread);
    void emitCopySync(const PendingHost& host, const PendingCopy* copy);
    void consumeSample(const HostEvent& event);

    // A run of one thread's samples being joined (host_samples row not yet written).
    struct SampleRun {
        format::HostSampleRow row;
        uint32_t lastTick = 0;
    };
    void writeSampleRun(const SampleRun& run);

    format::SessionWriter* m_writer;
    int64_t m_processId = 0;
    int64_t m_pid = 0;
    int64_t m_mainThreadRow = 0;
    bool m_syncRecords = true;
    StepClock* m_stepClock = nullptr;
    int64_t m_lastSeenNs = 0;
    Stats m_stats;
    ModuleTable m_modules;
    std::vector<int64_t> m_moduleRows; // parallel to the module paths written, by (start,path)
    std::unordered_map<uint64_t, int64_t> m_moduleRowByStart;
    std::unordered_map<int32_t, int64_t> m_threads;
    std::unordered_map<uint32_t, int64_t> m_devices;
    std::unordered_set<uint32_t> m_namedDevices; // devices whose DEVICE record was written
    std::unordered_map<uint32_t, uint32_t> m_contextDevice;
    std::unordered_map<uint32_t, uint32_t> m_contextNullStream;
    std::unordered_map<uint64_t, int64_t> m_streams;
    StackInterner m_stackInterner;
    std::unordered_map<uint64_t, int64_t> m_apiNames;
    std::unordered_map<uint32_t, PendingHost> m_pendingHost;
    std::unordered_map<uint32_t, ActivityRecord> m_pendingSyncRecords;
    std::unordered_map<uint32_t, PendingCopy> m_pendingCopies;
    NvtxRanges m_ranges;
    int64_t m_captureRow = 0;                            // the open capture interval's row; 0: none
    std::unordered_map<int32_t, SampleRun> m_sampleRuns; // by tid
    CaptureStats m_nativeCapture;
    // The same captures split: every PC's rule cached (warm) or some computed (cold: a thread's
    // first walk through new code).
    CaptureStats m_warmCapture;
    CaptureStats m_coldCapture;
    CaptureStats m_pythonCapture;
};

} // namespace stallscope::recorder
