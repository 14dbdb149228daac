// Whether CUPTI writes per-API activity records (cuptiActivityEnableRuntimeApi) that are switched
// on after the program's context exists: capture control switches them on only when its range
// opens, and its sessions had no API calls (bench/RESULTS.md, "Capture control's missing API
// calls"). CUPTI alone, no recorder; kernel records on from the start in every mode.
//   cupti_api_late start           API records on before the first CUDA call (the recorder's
//   default) cupti_api_late after-context   on only once the context exists (capture control)
//   cupti_api_late off-before      on and off before the context, on again after it
//   cupti_api_late off-after       on before the context, off after it, on again (the probe)
//   cupti_api_late kind-after      CUPTI_ACTIVITY_KIND_RUNTIME (every runtime API) after it
//   cupti_api_late off-after-thread      as off-after, switched on again by another thread
//   cupti_api_late off-after-thread-ctx  the same, that thread with the context made current
//   (capture control's --delay opens on the recorder's writer thread)
//   cupti_api_late off-after-busy        as off-after-thread while this thread launches kernels
// Prints the API records and launch records of the 100 launches made after the last switch.
// Build, from the repository root: nvcc -O2 -std=c++17 -I. bench/recorder/cupti_api_late.cu
// -lcupti -lcuda -o cupti_api_late (CUPTI's headers and library on the paths).
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>

#include "bench/recorder/cupti_traced_calls.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

long g_apiRecords = 0, g_launchRecords = 0, g_kernels = 0;

void CUPTIAPI requestBuffer(uint8_t** buffer, size_t* size, size_t* maxRecords) {
    *size = 8 << 20;
    *buffer = static_cast<uint8_t*>(aligned_alloc(8, *size));
    *maxRecords = 0;
}

void CUPTIAPI completeBuffer(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t validSize) {
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
        if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
            ++g_kernels;
        } else if (record->kind == CUPTI_ACTIVITY_KIND_RUNTIME) {
            ++g_apiRecords;
            const uint32_t cbid = reinterpret_cast<CUpti_ActivityAPI*>(record)->cbid;
            g_launchRecords += cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 ||
                               cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000;
        }
    }
    free(buffer);
}

__global__ void touch(float* data) {
    data[threadIdx.x] += 1.0f;
}

} // namespace

int main(int argc, char** argv) {
    const std::string mode = argc == 2 ? argv[1] : "";
    const bool busy = mode == "off-after-busy";
    const bool onThread = mode == "off-after-thread" || mode == "off-after-thread-ctx" || busy;
    const bool offAfter = mode == "off-after" || onThread;
    if (mode != "start" && mode != "after-context" && mode != "off-before" && !offAfter &&
        mode != "kind-after") {
        fprintf(stderr, "usage: cupti_api_late start|after-context|off-before|off-after|"
                        "off-after-thread|off-after-thread-ctx|off-after-busy|kind-after\n");
        return 2;
    }
    cuptiActivityRegisterCallbacks(requestBuffer, completeBuffer);
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (mode == "start" || mode == "off-before" || offAfter)
        switchTracedApiRecords(true);
    if (mode == "off-before")
        switchTracedApiRecords(false);
    float* data = nullptr;
    cudaMalloc(&data, 256 * sizeof(float)); // the context
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    touch<<<1, 256, 0, stream>>>(data);
    cudaStreamSynchronize(stream);
    if (offAfter) {
        switchTracedApiRecords(false);
        touch<<<1, 256, 0, stream>>>(data);
        cudaStreamSynchronize(stream);
    }
    if (mode == "after-context" || mode == "off-before" || mode == "off-after")
        switchTracedApiRecords(true);
    if (onThread) {
        CUcontext context = nullptr;
        cuCtxGetCurrent(&context);
        std::atomic<bool> switched{false};
        std::thread switcher([&] {
            if (mode == "off-after-thread-ctx")
                cuCtxSetCurrent(context);
            if (busy) // the launches below are under way
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            switchTracedApiRecords(true);
            switched = true;
        });
        long busyLaunches = 0;
        while (busy && !switched) {
            touch<<<1, 256, 0, stream>>>(data);
            if (++busyLaunches % 64 == 0)
                cudaStreamSynchronize(stream);
        }
        switcher.join();
        cudaStreamSynchronize(stream);
        if (busy)
            printf("launches while switching: %ld\n", busyLaunches);
    }
    if (mode == "kind-after")
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
    cuptiActivityFlushAll(1);
    g_apiRecords = g_launchRecords = g_kernels = 0;
    for (int i = 0; i < 100; ++i)
        touch<<<1, 256, 0, stream>>>(data);
    cudaStreamSynchronize(stream);
    cuptiActivityFlushAll(1);
    printf("mode=%s api_records=%ld launch_records=%ld kernels=%ld\n", mode.c_str(), g_apiRecords,
           g_launchRecords, g_kernels);
    return 0;
}
