// HostEvent: what a target thread hands to the writer thread, through its own EventRing; and what
// the Python sampler hands it (Type::Sample: another thread's Python frames at one tick, `tid`
// that thread, `correlationId` the tick's number, startNs = endNs its time, no native frames).
#pragma once

#include <cstdint>

namespace stallscope::recorder {

inline constexpr int kMaxStackFrames = 96;
inline constexpr int kMaxPythonFrames = 48;

struct HostEvent {
    enum class Type : uint8_t { ApiCall = 1, Scope = 2, Sample = 3 };
    Type type = Type::ApiCall;
    uint8_t domain = 0;   // CUPTI callback domain (ApiCall)
    uint8_t apiClass = 0; // ApiClass
    // PCs whose unwind rule this capture had to compute (capped at 255; 0: all were cached).
    uint8_t captureMisses = 0;
    uint32_t cbid = 0;
    uint32_t correlationId = 0;
    int32_t tid = 0;
    int32_t depth = 0;            // stack frames, or scope nesting depth
    uint32_t captureNs = 0;       // time the native stack capture took (0 when none)
    uint32_t pythonCaptureNs = 0; // time the Python frame capture took (0 when none)
    int32_t pythonDepth = 0;      // Python frames in `python`, innermost first
    // The CUPTI context and stream a stream sync or stream wait names (kNoStream: none).
    static constexpr uint32_t kNoStream = UINT32_MAX;
    uint32_t contextId = 0;
    uint32_t streamId = kNoStream;
    // The device of that context (kNoStream when unknown): the stream's row needs it before
    // CUPTI's CONTEXT record arrives, which may be after the first syncs (NCCL's start-up).
    uint32_t deviceId = kNoStream;
    int64_t startNs = 0;
    int64_t endNs = 0;
    uint64_t stackHash = 0; // 0: no stack; covers native and Python frames
    union {
        uintptr_t pcs[kMaxStackFrames];
        char name[kMaxStackFrames * sizeof(uintptr_t)]; // Scope: NUL-terminated label
    };
    uint64_t python[kMaxPythonFrames]; // PythonFrames' packed words (valid up to pythonDepth)
    HostEvent() : pcs{} {}
};

} // namespace stallscope::recorder
