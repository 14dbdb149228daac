// The values of the sessions' enum columns, and their display names (Qt-free; the views wrap them
// in QString). Values are stable: they are stored in files.
#pragma once

#include <string_view>

namespace stallscope::format {

// syncs.kind: what made the host wait. Values are stable (stored in files).
enum class SyncKind : int {
    Stream = 1,          // cudaStreamSynchronize / cuStreamSynchronize
    Device = 2,          // cudaDeviceSynchronize / cuCtxSynchronize
    Event = 3,           // cudaEventSynchronize / cuEventSynchronize
    StreamWaitEvent = 4, // cudaStreamWaitEvent (does not block the host; recorded for the link)
    PageableCopy = 5,    // implicit: a copy to or from pageable host memory that blocks the host
    BlockingCopy = 6,    // implicit: synchronous cudaMemcpy (no pageable host side)
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
inline constexpr int kCopyKindMax = 10;

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
inline constexpr int kMemoryKindMax = 7;

// ranges.kind.
enum class RangeKind : int { NvtxPushPop = 1, NvtxStartEnd = 2, Scope = 3 };

// frames.kind.
enum class FrameKind : int { Native = 1, Python = 2 };

// "stream synchronize", "device synchronize", ... (SyncKind values); "sync" when unknown.
std::string_view syncKindName(int kind);
// "HtoD", "DtoH", ... (CopyKind values); "" when unknown.
std::string_view copyKindName(int kind);
// "pageable", "pinned", "device", ... (MemoryKind values); "unknown" when unknown.
std::string_view memoryKindName(int kind);

} // namespace stallscope::format
