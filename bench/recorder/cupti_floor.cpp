// CUPTI's own price, without Stallscope: the smallest injection library that traces kernels.
// Loaded by CUDA_INJECTION64_PATH; CUPTI_FLOOR picks what it enables:
//   subscribe          cuptiSubscribe only (no callbacks enabled, no activity kinds)
//   kernel             CONCURRENT_KERNEL records, buffers counted and dropped
//   kernel-pinned      same, CUPTI's device-side record buffers in pinned host memory
//   kernel-shared      same, one activity buffer for all threads (not per thread)
//   kernel+api         kernel records, and CUPTI's API records of the launches and stream syncs
//   kernel+callbacks   kernel records, and an API callback on the launches and stream syncs that
//                      timestamps each call (enter and exit) into a thread-local array
// At exit it prints "cupti_floor mode=... kernels=N api=N calls=N" on stderr. Used by ablation.py
// and bench/whatif/instrumented_saving.py (issues 19, 12) to tell what a recorder can and cannot
// take off the launch path. Built beside the carried recorder (one command, CUDA the toolkit):
//   g++ -O2 -shared -fPIC -std=c++17 -I$CUDA/targets/x86_64-linux/include cupti_floor.cpp
//     -L$CUDA/targets/x86_64-linux/lib -lcupti -Wl,-rpath,$CUDA/targets/x86_64-linux/lib
//     -pthread -o CARRY_DIR/libcupti_floor.so
#include <cupti.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>

namespace {

std::atomic<long> g_kernels{0};
std::atomic<long> g_apiRecords{0};
std::atomic<bool> g_stop{false};
std::string g_mode;

void CUPTIAPI requestBuffer(uint8_t** buffer, size_t* size, size_t* maxRecords) {
    *size = 8 << 20;
    *buffer = static_cast<uint8_t*>(aligned_alloc(8, *size));
    *maxRecords = 0;
}

void CUPTIAPI completeBuffer(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t validSize) {
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS)
        if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
            g_kernels.fetch_add(1, std::memory_order_relaxed);
        else if (record->kind == CUPTI_ACTIVITY_KIND_RUNTIME)
            g_apiRecords.fetch_add(1, std::memory_order_relaxed);
    free(buffer);
}

void CUPTIAPI ignoreCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

// What a recorder's callback must at least do per call: read a clock on enter and on exit and keep
// the interval with its correlation id.
struct TimedCall {
    uint32_t correlationId;
    uint32_t cbid;
    int64_t startNs;
    int64_t endNs;
};
constexpr size_t kTimedCalls = 1 << 16;
thread_local TimedCall t_calls[kTimedCalls];
thread_local size_t t_callCount = 0;
std::atomic<long> g_calls{0};

int64_t monotonicNs() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void CUPTIAPI timeCall(void*, CUpti_CallbackDomain, CUpti_CallbackId cbid, const void* raw) {
    auto* data = static_cast<const CUpti_CallbackData*>(raw);
    TimedCall& call = t_calls[t_callCount & (kTimedCalls - 1)];
    if (data->callbackSite == CUPTI_API_ENTER) {
        call.correlationId = data->correlationId;
        call.cbid = cbid;
        call.startNs = monotonicNs();
    } else {
        call.endNs = monotonicNs();
        ++t_callCount;
        g_calls.fetch_add(1, std::memory_order_relaxed);
    }
}

constexpr CUpti_CallbackId kTimedRuntimeCalls[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000,
};

void finish() {
    g_stop = true;
    cuptiActivityFlushAll(1);
    fprintf(stderr, "cupti_floor mode=%s kernels=%ld api=%ld calls=%ld\n", g_mode.c_str(),
            g_kernels.load(), g_apiRecords.load(), g_calls.load());
}

void check(CUptiResult result, const char* what) {
    if (result == CUPTI_SUCCESS)
        return;
    const char* text = nullptr;
    cuptiGetResultString(result, &text);
    fprintf(stderr, "cupti_floor: %s failed: %s\n", what, text ? text : "?");
}

} // namespace

extern "C" int InitializeInjection(void) {
    const char* mode = getenv("CUPTI_FLOOR");
    g_mode = mode ? mode : "kernel";
    if (g_mode == "subscribe") {
        CUpti_SubscriberHandle subscriber;
        check(cuptiSubscribe(&subscriber, ignoreCallback, nullptr), "cuptiSubscribe");
        atexit(finish);
        return 1;
    }
    // A CUPTI attribute that takes one byte.
    auto setFlag = [](CUpti_ActivityAttribute attribute, uint8_t value, const char* name) {
        size_t size = sizeof(value);
        check(cuptiActivitySetAttribute(attribute, &size, &value), name);
    };
    if (g_mode == "kernel-pinned")
        setFlag(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, 1, "HOST_PINNED");
    if (g_mode == "kernel-shared")
        setFlag(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, 0, "PER_THREAD_ACTIVITY_BUFFER");
    check(cuptiActivityRegisterCallbacks(requestBuffer, completeBuffer), "RegisterCallbacks");
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "Enable");
    if (g_mode == "kernel+api") {
        for (CUpti_CallbackId cbid : kTimedRuntimeCalls)
            check(cuptiActivityEnableRuntimeApi(cbid, 1), "EnableRuntimeApi");
    }
    if (g_mode == "kernel+callbacks") {
        CUpti_SubscriberHandle subscriber;
        check(cuptiSubscribe(&subscriber, timeCall, nullptr), "cuptiSubscribe");
        for (CUpti_CallbackId cbid : kTimedRuntimeCalls)
            check(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, cbid),
                  "cuptiEnableCallback");
    }
    if (g_mode.rfind("duty:", 0) == 0) {
        int period = 100, on = 10;
        sscanf(g_mode.c_str(), "duty:%d:%d", &period, &on);
        std::thread([period, on] {
            bool enabled = true;
            auto next = std::chrono::steady_clock::now() + std::chrono::milliseconds(on);
            while (!g_stop) {
                std::this_thread::sleep_until(next);
                if (enabled)
                    check(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "Disable");
                else
                    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "Enable");
                enabled = !enabled;
                next += std::chrono::milliseconds(enabled ? on : period - on);
            }
        }).detach();
    }
    atexit(finish);
    return 1;
}
