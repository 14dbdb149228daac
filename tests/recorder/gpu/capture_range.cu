// GPU test program for capture control (tst_recorder_capture_gpu). Every kernel is named after the
// phase it runs in and followed by its own stream sync, so a session shows which phases were
// recorded.
//
//   capture_range ranges
//     4 x before_range
//     cudaProfilerStart
//       3 x in_profiler, NVTX range "capture_me" around 4 x in_nvtx, 3 x in_profiler
//     cudaProfilerStop
//     4 x between_ranges, NVTX range "capture_me" around 3 x second_nvtx
//     cudaProfilerStart
//       5 x second_profiler
//     cudaProfilerStop
//     4 x after_ranges
//
//   capture_range timed SECONDS COUNT_FILE
//     `tick` kernels with a sync each for SECONDS after the first CUDA call, then writes how many
//     it launched to COUNT_FILE.
#include "tests/recorder/gpu/cuda_check.h"

#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

// A few microseconds of work, so each kernel has a visible span.
__device__ void work(float* data) {
    float v = data[threadIdx.x];
    for (int r = 0; r < 500; ++r)
        v = v * 0.999f + 0.001f;
    data[threadIdx.x] = v;
}

extern "C" __global__ void before_range(float* d) {
    work(d);
}
extern "C" __global__ void in_profiler(float* d) {
    work(d);
}
extern "C" __global__ void in_nvtx(float* d) {
    work(d);
}
extern "C" __global__ void between_ranges(float* d) {
    work(d);
}
extern "C" __global__ void second_nvtx(float* d) {
    work(d);
}
extern "C" __global__ void second_profiler(float* d) {
    work(d);
}
extern "C" __global__ void after_ranges(float* d) {
    work(d);
}
extern "C" __global__ void tick(float* d) {
    work(d);
}

static float* g_data = nullptr;
static cudaStream_t g_stream;

static void run(void (*kernel)(float*), int times) {
    for (int i = 0; i < times; ++i) {
        kernel<<<1, 256, 0, g_stream>>>(g_data);
        CHECK(cudaStreamSynchronize(g_stream));
    }
}

static long long monotonicNs() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

int main(int argc, char** argv) {
    const bool timed = argc == 4 && strcmp(argv[1], "timed") == 0;
    if (!timed && !(argc == 2 && strcmp(argv[1], "ranges") == 0)) {
        fprintf(stderr, "usage: capture_range ranges | timed SECONDS COUNT_FILE\n");
        return 2;
    }
    // CUDA first: the recorder starts with it and must be there for the first NVTX call.
    const long long start = monotonicNs();
    CHECK(cudaStreamCreate(&g_stream));
    CHECK(cudaMalloc(&g_data, 256 * sizeof(float)));
    if (timed) {
        const long long seconds = atof(argv[2]) * 1e9;
        long long launched = 0;
        while (monotonicNs() - start < seconds) {
            run(tick, 1);
            ++launched;
        }
        FILE* count = fopen(argv[3], "w");
        if (!count)
            return 2;
        fprintf(count, "%lld\n", launched);
        fclose(count);
        return 0;
    }
    run(before_range, 4);
    CHECK(cudaProfilerStart());
    run(in_profiler, 3);
    nvtxRangePushA("capture_me");
    run(in_nvtx, 4);
    nvtxRangePop();
    run(in_profiler, 3);
    CHECK(cudaProfilerStop());
    run(between_ranges, 4);
    nvtxRangePushA("capture_me");
    run(second_nvtx, 3);
    nvtxRangePop();
    CHECK(cudaProfilerStart());
    run(second_profiler, 5);
    CHECK(cudaProfilerStop());
    run(after_ranges, 4);
    return 0;
}
