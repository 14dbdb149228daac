// Launch-bound overhead benchmark: tiny kernels, a stream sync every PER_SYNC launches.
//   launch_bound ITERATIONS PER_SYNC [nvtx]   prints the loop's wall time (after a warm-up)
// With `nvtx` each iteration is an NVTX range "step", as in a training loop that marks its steps:
// what a recorder watching for another range name (--capture-range nvtx:NAME) pays per step
// (bench/recorder/capture_overhead.sh). Build: nvcc -O2 launch_bound.cu -o launch_bound -ldl.
// Also used for the dropped-records check: launch_bound 200000 1000 launches ~1M kernels/s.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void tiny(float* x) {
    x[threadIdx.x] += 1.0f;
}

int main(int argc, char** argv) {
    int iterations = argc > 1 ? atoi(argv[1]) : 2000;
    int perSync = argc > 2 ? atoi(argv[2]) : 4;
    const bool nvtx = argc > 3 && strcmp(argv[3], "nvtx") == 0;
    float* d = nullptr;
    cudaMalloc(&d, 1024 * sizeof(float));
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    for (int i = 0; i < 200; ++i)
        tiny<<<1, 32, 0, s>>>(d);
    cudaStreamSynchronize(s);
    auto t0 = std::chrono::steady_clock::now();
    long kernels = 0;
    for (int i = 0; i < iterations; ++i) {
        if (nvtx)
            nvtxRangePushA("step");
        for (int k = 0; k < perSync; ++k, ++kernels)
            tiny<<<1, 32, 0, s>>>(d);
        cudaStreamSynchronize(s);
        if (nvtx)
            nvtxRangePop();
    }
    auto t1 = std::chrono::steady_clock::now();
    double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    printf("launch_bound iterations=%d per_sync=%d%s kernels=%ld ms=%.3f kernels_per_s=%.0f\n",
           iterations, perSync, nvtx ? " nvtx" : "", kernels, ms, kernels / (ms / 1000.0));
    cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? 0 : 1;
}
