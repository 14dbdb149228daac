#include "recorder/callback_handler.h"

#include "recorder/event_ring.h"
#include "recorder/python_frames.h"
#include "recorder/stack_unwinder.h"

#include <cupti.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <ctime>

namespace stallscope::recorder {

namespace {

struct ThreadState {
    EventRing* ring = nullptr;
    HostEvent* open = nullptr;
    uint32_t openCorrelation = 0;
    int runtimeDepth = 0;
    int32_t tid = 0;
    uint32_t epoch = 0; // CallbackHandler::m_epoch when `open` and `runtimeDepth` were last kept
};
thread_local ThreadState t_state;

// Layout of cudaMemcpyAsync_v3020_params (generated_cuda_runtime_api_meta.h, CUDA 13), mirrored
// because that header does not compile on its own.
struct MemcpyAsyncParams {
    void* dst;
    const void* src;
    size_t count;
    int kind; // cudaMemcpyKind
    void* stream;
};
constexpr int kCudaMemcpyHostToDevice = 1;
constexpr int kCudaMemcpyDeviceToHost = 2;
constexpr int kCudaMemcpyDefault = 4;

// cudaStreamSynchronize, cudaStreamWaitEvent, cuStreamSynchronize, cuStreamWaitEvent and their
// _ptsz variants all take the stream first (generated_cuda_runtime_api_meta.h,
// generated_cuda_meta.h, CUDA 13).
struct StreamFirstParams {
    CUstream stream;
};

} // namespace

int64_t CallbackHandler::nowNs() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

bool CallbackHandler::asyncCopyMayBlock(int domain, uint32_t cbid, const void* raw) {
    auto* data = static_cast<const CUpti_CallbackData*>(raw);
    if (domain == ApiClassifier::kRuntimeDomain &&
        (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020 ||
         cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000) &&
        data->functionParams) {
        auto* params = static_cast<const MemcpyAsyncParams*>(data->functionParams);
        // Only a copy with a host side (or direction-inferred) can touch pageable host memory.
        return params->kind == kCudaMemcpyHostToDevice || params->kind == kCudaMemcpyDeviceToHost ||
               params->kind == kCudaMemcpyDefault;
    }
    return true;
}

void CallbackHandler::noteStream(const CUpti_CallbackData& data, HostEvent* event) {
    // Which stream the sync waits for, as the kernel records name it (the what-if replay needs
    // it; CUPTI's SYNCHRONIZATION records, off by default, would say it too). Taken before the
    // API's time starts.
    const CUstream stream = static_cast<const StreamFirstParams*>(data.functionParams)->stream;
    const bool perThread = data.functionName && strstr(data.functionName, "_ptsz");
    uint32_t contextId = 0, streamId = 0;
    if (cuptiGetContextId(data.context, &contextId) == CUPTI_SUCCESS &&
        cuptiGetStreamIdEx(data.context, stream, perThread ? 1 : 0, &streamId) == CUPTI_SUCCESS) {
        event->contextId = contextId;
        event->streamId = streamId;
        uint32_t deviceId = 0;
        if (cuptiGetDeviceId(data.context, &deviceId) == CUPTI_SUCCESS)
            event->deviceId = deviceId;
    }
}

void CallbackHandler::onApi(int domain, uint32_t cbid, const void* raw) {
    auto* data = static_cast<const CUpti_CallbackData*>(raw);
    if (!m_enabled.load(std::memory_order_relaxed) || !data)
        return;
    ApiClass c = m_classifier->lookup(domain, cbid);
    ThreadState& t = t_state;
    if (const uint32_t epoch = m_epoch.load(std::memory_order_relaxed); t.epoch != epoch) {
        t.epoch = epoch; // the reserved slot of a call left open is reused, never published
        t.open = nullptr;
        t.runtimeDepth = 0;
    }
    if (data->callbackSite == CUPTI_API_ENTER) {
        if (domain == ApiClassifier::kRuntimeDomain) {
            ++t.runtimeDepth;
        } else if (t.runtimeDepth > 0) {
            return; // a driver call made by the runtime: the runtime call already has the stack
        }
        if (!ApiClassifier::wantsStack(c) || t.open)
            return;
        if (c == ApiClass::CopyAsync && !asyncCopyMayBlock(domain, cbid, raw))
            return;
        if (!t.ring) {
            t.ring = EventRing::forThisThread();
            t.tid = int32_t(syscall(SYS_gettid));
            if (!t.ring)
                return;
        }
        HostEvent* event = t.ring->reserve();
        if (!event)
            return;
        event->type = HostEvent::Type::ApiCall;
        event->domain = uint8_t(domain);
        event->apiClass = uint8_t(c);
        event->cbid = cbid;
        event->correlationId = data->correlationId;
        event->tid = t.tid;
        event->depth = 0;
        event->captureNs = 0;
        event->captureMisses = 0;
        event->pythonCaptureNs = 0;
        event->pythonDepth = 0;
        event->stackHash = 0;
        event->contextId = 0;
        event->streamId = HostEvent::kNoStream;
        event->deviceId = HostEvent::kNoStream;
        if ((c == ApiClass::StreamSync || c == ApiClass::StreamWaitEvent) && data->context &&
            data->functionParams)
            noteStream(*data, event);
        if (m_stacks) {
            const uint64_t missesBefore = StackUnwinder::cacheMisses();
            int64_t before = nowNs();
            event->depth = StackUnwinder::capture(event->pcs, std::min(m_depth, kMaxStackFrames));
            int64_t after = nowNs();
            event->captureMisses =
                uint8_t(std::min<uint64_t>(255, StackUnwinder::cacheMisses() - missesBefore));
            event->captureNs = uint32_t(std::max<int64_t>(1, after - before));
            uint64_t hash = StackUnwinder::hash(event->pcs, event->depth);
            if (m_python) {
                // Same moment, same thread: the Python frames that led to this call.
                event->pythonDepth = PythonFrames::capture(event->python, kMaxPythonFrames);
                int64_t pythonAfter = nowNs();
                event->pythonCaptureNs = uint32_t(std::max<int64_t>(1, pythonAfter - after));
                after = pythonAfter;
                if (event->pythonDepth > 0)
                    hash = (hash * 0x9E3779B97F4A7C15ull) ^
                           StackUnwinder::hash(event->python, event->pythonDepth);
            }
            event->stackHash = hash ? hash : 1;
            event->startNs = after; // the API's own time starts after our capture
        } else {
            event->startNs = nowNs();
        }
        t.open = event;
        t.openCorrelation = data->correlationId;
        return;
    }
    // CUPTI_API_EXIT
    if (domain == ApiClassifier::kRuntimeDomain) {
        if (t.runtimeDepth > 0)
            --t.runtimeDepth;
    } else if (t.runtimeDepth > 0) {
        return;
    }
    if (t.open && t.openCorrelation == data->correlationId) {
        t.open->endNs = nowNs();
        t.open = nullptr;
        t.ring->publish();
    }
}

} // namespace stallscope::recorder
