// Which ways of switching CUPTI's collection off and on mid-run keep correlation ids apart
// (bench/RESULTS.md, "Issue 38, item 4": after the overhead probe's first stretch every record of
// some recordings carried one correlation id). A loop launches kernels and syncs on its stream
// while a second thread switches collection every few milliseconds, far more often than the
// recorder does, so a fault that needs a call in flight at the switch shows up in one run.
//   cupti_toggle MODE WORKLOAD
//   MODE:     none       never switches (the control)
//             all        kernel records and the per-call API records, as the recorder does
//             kernels    kernel records only; API records stay on
//             api        the per-call API records only; kernel records stay on
//             all-gated  as `all`, but only while no thread is inside a traced call: an API
//                        callback on the traced calls holds new calls at the gate during a switch
//   WORKLOAD: gpu-heavy  one 1 ms kernel then a stream sync (the host sits in the sync)
//             launches   200 short kernels then a stream sync (the host sits in launches)
// It prints one line: mode, workload, switches, and for API records and kernels the count and
// the distinct correlation ids, and how many kernels name a launch record that is not theirs.
// Build, from the repository root: nvcc -O2 -std=c++17 -I. bench/recorder/cupti_toggle.cu -lcupti
// -o cupti_toggle (CUPTI's headers and library on the paths).
#include <cuda_runtime.h>
#include <cupti.h>

#include "bench/recorder/cupti_traced_calls.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace {

struct Collected {
    std::mutex mutex;
    std::vector<uint32_t> apiIds;
    std::unordered_map<uint32_t, uint32_t> launchCbidById; // API records of launches
    std::vector<uint32_t> kernelIds;
} g_collected;

void CUPTIAPI requestBuffer(uint8_t** buffer, size_t* size, size_t* maxRecords) {
    *size = 8 << 20;
    *buffer = static_cast<uint8_t*>(aligned_alloc(8, *size));
    *maxRecords = 0;
}

bool isLaunch(uint32_t cbid) {
    return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000;
}

void CUPTIAPI completeBuffer(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t validSize) {
    CUpti_Activity* record = nullptr;
    std::lock_guard lock(g_collected.mutex);
    while (cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
        if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
            g_collected.kernelIds.push_back(
                reinterpret_cast<CUpti_ActivityKernel10*>(record)->correlationId);
        } else if (record->kind == CUPTI_ACTIVITY_KIND_RUNTIME) {
            auto* api = reinterpret_cast<CUpti_ActivityAPI*>(record);
            g_collected.apiIds.push_back(api->correlationId);
            if (isLaunch(api->cbid))
                g_collected.launchCbidById[api->correlationId] = api->cbid;
        }
    }
    free(buffer);
}

void check(CUptiResult result, const char* what) {
    if (result == CUPTI_SUCCESS)
        return;
    const char* text = nullptr;
    cuptiGetResultString(result, &text);
    fprintf(stderr, "cupti_toggle: %s failed: %s\n", what, text ? text : "?");
}

void switchKernelRecords(bool on) {
    check(on ? cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
             : cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
          "cuptiActivity(Enable|Disable)(CONCURRENT_KERNEL)");
}

// The gate: a traced call enters only while no switch is under way, and a switch starts only
// once no traced call is in flight.
std::atomic<int> g_inFlight{0};
std::atomic<bool> g_switching{false};

void CUPTIAPI gateCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void* raw) {
    auto* data = static_cast<const CUpti_CallbackData*>(raw);
    if (data->callbackSite == CUPTI_API_ENTER) {
        for (;;) {
            while (g_switching.load(std::memory_order_acquire))
                std::this_thread::yield();
            g_inFlight.fetch_add(1, std::memory_order_acq_rel);
            if (!g_switching.load(std::memory_order_acquire))
                return;
            g_inFlight.fetch_sub(1, std::memory_order_acq_rel); // a switch began: wait for it
        }
    }
    g_inFlight.fetch_sub(1, std::memory_order_acq_rel);
}

__global__ void spin(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

__global__ void touch(float* data) {
    data[threadIdx.x] += 1.0f;
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: cupti_toggle none|all|kernels|api|all-gated gpu-heavy|launches\n");
        return 2;
    }
    const std::string mode = argv[1];
    const std::string workload = argv[2];
    const bool gated = mode == "all-gated";
    const bool switchesApi = mode == "all" || mode == "api" || gated;
    const bool switchesKernels = mode == "all" || mode == "kernels" || gated;

    check(cuptiActivityRegisterCallbacks(requestBuffer, completeBuffer), "register");
    switchKernelRecords(true);
    switchTracedApiRecords(true);
    if (gated) {
        CUpti_SubscriberHandle subscriber;
        check(cuptiSubscribe(&subscriber, gateCallback, nullptr), "cuptiSubscribe");
        for (CUpti_CallbackId cbid : kTracedCalls)
            check(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, cbid),
                  "cuptiEnableCallback");
    }

    cudaStream_t stream;
    cudaStreamCreate(&stream);
    float* data = nullptr;
    cudaMalloc(&data, 1024 * sizeof(float));
    std::atomic<bool> stop{false};
    std::atomic<long> switches{0};
    std::thread switcher([&] {
        bool on = true;
        while (!stop.load()) {
            std::this_thread::sleep_for(std::chrono::microseconds(3000 + rand() % 4000));
            if (mode == "none")
                continue;
            on = !on;
            if (gated) {
                g_switching.store(true, std::memory_order_release);
                while (g_inFlight.load(std::memory_order_acquire) != 0)
                    std::this_thread::yield();
            }
            if (switchesKernels)
                switchKernelRecords(on);
            if (switchesApi)
                switchTracedApiRecords(on);
            if (gated)
                g_switching.store(false, std::memory_order_release);
            switches.fetch_add(1);
        }
        if (!on) {
            if (switchesKernels)
                switchKernelRecords(true);
            if (switchesApi)
                switchTracedApiRecords(true);
        }
    });

    long launches = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (std::chrono::steady_clock::now() < until) {
        if (workload == "gpu-heavy") {
            spin<<<1, 1, 0, stream>>>(1500000); // about 1 ms
            ++launches;
        } else {
            for (int i = 0; i < 200; ++i, ++launches)
                touch<<<1, 256, 0, stream>>>(data);
        }
        cudaStreamSynchronize(stream);
    }
    stop = true;
    switcher.join();
    // Records after collection is back on: these say whether ids came apart again.
    for (int i = 0; i < 100; ++i, ++launches)
        touch<<<1, 256, 0, stream>>>(data);
    cudaStreamSynchronize(stream);
    cudaDeviceSynchronize();
    cuptiActivityFlushAll(1);

    std::lock_guard lock(g_collected.mutex);
    auto distinct = [](std::vector<uint32_t> ids) {
        std::sort(ids.begin(), ids.end());
        return long(std::unique(ids.begin(), ids.end()) - ids.begin());
    };
    long kernelsWithoutLaunch = 0;
    for (uint32_t id : g_collected.kernelIds)
        kernelsWithoutLaunch += g_collected.launchCbidById.count(id) == 0;
    const long apiDistinct = distinct(g_collected.apiIds);
    const long kernelDistinct = distinct(g_collected.kernelIds);
    const bool intact = apiDistinct == long(g_collected.apiIds.size()) &&
                        kernelDistinct == long(g_collected.kernelIds.size());
    printf("mode=%s workload=%s switches=%ld launches=%ld api=%zu api_ids=%ld kernels=%zu "
           "kernel_ids=%ld kernels_without_launch_record=%ld %s\n",
           mode.c_str(), workload.c_str(), switches.load(), launches, g_collected.apiIds.size(),
           apiDistinct, g_collected.kernelIds.size(), kernelDistinct, kernelsWithoutLaunch,
           intact ? "intact" : "BROKEN");
    return 0;
}
