// GPU test program for the flight recorder (tst_recorder_ring_gpu): a training-like loop of ~2 ms
// steps, each four short kernels, one stream sync at the same line and a little host work.
//
//   flight_loop SECONDS READY_FILE [HICCUP_AT_SECONDS [EVAL_AT_SECONDS]]
//     runs for SECONDS after its first CUDA call. The kernels of the first half second are named
//     `early`, later ones `step_work`; after one second READY_FILE is written (the test's cue to
//     signal). At HICCUP_AT_SECONDS (none when negative) one step launches a `hiccup` kernel,
//     syncs on it, then stalls on the host for 400 ms (a data loader that hangs): the slow step.
//     At EVAL_AT_SECONDS the loop is left for 400 ms of `eval` kernels, each synced at its own
//     line (an evaluation between epochs), and taken up again.
#include "tests/recorder/gpu/cuda_check.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

__device__ void work(float* data) {
    float v = data[threadIdx.x];
    for (int r = 0; r < 200; ++r)
        v = v * 0.999f + 0.001f;
    data[threadIdx.x] = v;
}

extern "C" __global__ void early(float* d) {
    work(d);
}
extern "C" __global__ void step_work(float* d) {
    work(d);
}
extern "C" __global__ void hiccup(float* d) {
    work(d);
}
extern "C" __global__ void eval(float* d) {
    work(d);
}

static double seconds() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

static void sleepMs(int ms) {
    timespec ts{ms / 1000, long(ms % 1000) * 1000000};
    nanosleep(&ts, nullptr);
}

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr,
                "usage: flight_loop SECONDS READY_FILE [HICCUP_AT_SECONDS [EVAL_AT_SECONDS]]\n");
        return 2;
    }
    const double runFor = atof(argv[1]);
    const double hiccupAt = argc > 3 ? atof(argv[3]) : -1;
    const double evalAt = argc > 4 ? atof(argv[4]) : -1;
    float* data = nullptr;
    CHECK(cudaMalloc(&data, 256 * sizeof(float)));
    CHECK(cudaMemset(data, 0, 256 * sizeof(float)));
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    const double start = seconds();
    bool ready = false, hiccupDone = false, evalDone = false;
    for (double now = start; now - start < runFor; now = seconds()) {
        void (*kernel)(float*) = now - start < 0.5 ? early : step_work;
        for (int k = 0; k < 4; ++k)
            kernel<<<1, 256, 0, stream>>>(data);
        CHECK(cudaStreamSynchronize(stream)); // the loop's one sync a step
        if (hiccupAt >= 0 && !hiccupDone && now - start >= hiccupAt) {
            hiccupDone = true;
            hiccup<<<1, 256, 0, stream>>>(data);
            CHECK(cudaStreamSynchronize(stream));
            sleepMs(400);
        }
        if (evalAt >= 0 && !evalDone && now - start >= evalAt) {
            evalDone = true;
            for (const double evalStart = seconds(); seconds() - evalStart < 0.4;) {
                eval<<<1, 256, 0, stream>>>(data);
                CHECK(cudaStreamSynchronize(stream)); // the evaluation's own sync
                sleepMs(1);
            }
        }
        sleepMs(2); // the host's part of the step
        if (!ready && now - start >= 1.0) {
            ready = true;
            if (FILE* f = fopen(argv[2], "w")) {
                fputs("ready\n", f);
                fclose(f);
            }
        }
    }
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(data));
    return 0;
}
