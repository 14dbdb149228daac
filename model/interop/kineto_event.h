// KinetoEvent: the fields of one Chrome-trace event that the Kineto importer uses, filled by
// KinetoSaxHandler and reused from event to event (no allocation per event once warmed up).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stallscope::model {

// Event categories the importer knows. Ignored = known and deliberately not mapped (cpu_op,
// flows other than launch links, profiler overhead); Unknown = a category we have never seen.
enum class KinetoCategory : uint8_t {
    Unknown,
    Ignored,
    None, // no "cat": metadata ('M') and instant events
    PythonFunction,
    UserAnnotation,
    GpuUserAnnotation,
    CudaRuntime,
    CudaDriver,
    Kernel,
    GpuMemcpy,
    GpuMemset,
    CudaSync,
    Ac2g,
    StallscopeSync,    // "sync": Stallscope's own export (see chrome_trace_export.h)
    StallscopeProcess, // "stallscope_process": an exported process's recorded interval
};

KinetoCategory kinetoCategory(const std::string& cat);

// The fixed-size fields of an event (KinetoEventPipe copies them whole).
struct KinetoEventValues {
    char ph = 0;
    KinetoCategory category = KinetoCategory::None;
    bool pidIsNumber = false;
    bool tidIsNumber = false;
    int64_t pid = 0;
    int64_t tid = 0;
    bool hasTs = false;
    int64_t tsNs = 0;
    int64_t durNs = 0;
    // args
    int64_t correlation = 0;
    int64_t device = -1;
    int64_t context = 0;
    int64_t stream = -1;
    int64_t bytes = 0;
    int64_t cbid = 0;
    int32_t registersPerThread = 0;
    int32_t sharedMemory = 0;
    int64_t waitEventId = -1; // cuda_sync: wait_on_cuda_event_id; sync: event
    int64_t syncKind = 0;     // Stallscope "sync" events: format::SyncKind
    // cuda_sync of an event: the cudaEventRecord call's correlation and the stream it recorded
    // on (-1 where Kineto did not trace CUDA events, as with most profiler configurations)
    int64_t waitRecordCorrelation = -1;
    int64_t waitStream = -1;
    int32_t grid[3] = {1, 1, 1};
    int32_t block[3] = {1, 1, 1};
    // A Stallscope export writes a sync's stack once and names it by this id (-1: none) on the
    // syncs after it that share it.
    int64_t stackId = -1;

    // Where the event ends: a negative "dur" counts as none.
    int64_t endNs() const { return durNs > 0 ? tsNs + durNs : tsNs; }
};

struct KinetoEvent : KinetoEventValues {
    std::string cat;
    std::string name;
    std::string argName;            // metadata events: args.name (process/thread names)
    std::string argLabels;          // metadata events: args.labels
    std::vector<std::string> stack; // Stallscope "sync" events: frames, innermost first
    size_t stackSize = 0;           // entries of `stack` in use (the vector is reused)

    // Back to an empty event; the strings keep their memory.
    void reset();
};

// What the top level of a Kineto trace says besides its events.
struct KinetoDeviceProperties {
    int64_t id = -1;
    std::string name;
    int64_t totalGlobalMem = 0;
    int64_t computeMajor = 0;
    int64_t computeMinor = 0;
    int64_t numSms = 0;
};

} // namespace stallscope::model
