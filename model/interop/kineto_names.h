// The names Kineto (torch.profiler) gives things, both ways: which CUDA API calls block the host,
// `Memcpy DtoH (Device -> Pageable)` <-> copy/memory kinds, and the text form of stack frames in
// Stallscope's own "sync" events (chrome_trace_export.h), so export and import agree.
#pragma once

#include "format/session_rows.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace stallscope::model {

struct FrameInfo;

struct ApiSyncClass {
    int kind = 0;              // format::SyncKind, 0 when the call does not synchronize
    uint8_t copyCandidate = 0; // 1: async memcpy (blocks only to pageable memory), 2: synchronous
};
// cudaStream/Device/EventSynchronize (and driver twins), cudaStreamWaitEvent, cudaMemcpy*.
ApiSyncClass classifyApi(std::string_view apiName);

void parseMemcpyName(std::string_view name, format::CopyKind* copyKind, format::MemoryKind* srcKind,
                     format::MemoryKind* dstKind);
format::MemoryKind parseMemsetKind(std::string_view name);
std::string memcpyName(int copyKind, int srcKind, int dstKind);
std::string memsetName(int dstKind);
const char* syncKindName(int kind);

// Stack entries of exported "sync" events: `file.py(N): func` (a Python def line, Kineto's form),
// `file.py:N: func` (a Python executing line), `[native] text` (a native frame).
std::string stackEntryForFrame(const FrameInfo& frame);
format::FrameRow frameRowFromStackEntry(const std::string& entry);

} // namespace stallscope::model
