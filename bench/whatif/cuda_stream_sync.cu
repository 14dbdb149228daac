// Pair e: a C++ CUDA loop. Each iteration launches three memory-bound kernels on a created stream
// (~200 us of GPU work on an H100), does ~50 us of deterministic host computation, and waits.
//   before: cudaStreamSynchronize(stream) every iteration
//   after:  one cudaStreamSynchronize after the loop
//   cuda_stream_sync --variant before|after|both [--iters N] [--warmup N] [--rounds N]
//                    [--host-work N] [--rounds-after-recording N]
// Prints {"pair", "variant", "loop_s", "iterations", "syncs_per_iteration", "warmup"} on stdout
// for each timed loop (with its "round" under --variant both, as pair_harness.py does)
// and the host computation's measured time on stderr. --rounds-after-recording N (with --variant
// before, under stallscope-record): then ends the recording and times both variants alternately,
// N rounds, in the same process, as pair_harness.py does.
#include "bench/whatif/host_work.h"

#include <cuda_runtime.h>

#include <dlfcn.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr int kElements = 16 << 20; // 64 MiB per float array: ~70 us per kernel at HBM3 speed
constexpr int kKernelsPerIteration = 3;

__global__ void axpy(float* y, const float* x, float a, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = a * x[i] + y[i];
}

struct Options {
    bool before = true;
    bool both = false; // --variant both: the variants alternate in one process (pair_harness.py)
    int rounds = 7;
    int roundsAfterRecording = 0;
    int iterations = 5000;
    int warmup = 20;
    int hostWork = 40000; // ~50 us of a dependent chain at ~4 cycles per step
};

Options parse(int argc, char** argv) {
    Options options;
    bool variantGiven = false;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string flag = argv[i];
        const char* value = argv[i + 1];
        if (flag == "--variant") {
            variantGiven =
                !strcmp(value, "before") || !strcmp(value, "after") || !strcmp(value, "both");
            options.before = !strcmp(value, "before");
            options.both = !strcmp(value, "both");
        } else if (flag == "--iters") {
            options.iterations = atoi(value);
        } else if (flag == "--warmup") {
            options.warmup = atoi(value);
        } else if (flag == "--rounds") {
            options.rounds = atoi(value);
        } else if (flag == "--rounds-after-recording") {
            options.roundsAfterRecording = atoi(value);
        } else if (flag == "--host-work") {
            options.hostWork = atoi(value);
        } else {
            variantGiven = false;
            break;
        }
    }
    if (!variantGiven) {
        fprintf(stderr,
                "usage: %s --variant before|after|both [--iters N] [--warmup N] [--rounds N] "
                "[--host-work N] [--rounds-after-recording N]\n",
                argv[0]);
        exit(2);
    }
    return options;
}

struct Buffers {
    float* x;
    float* y;
    cudaStream_t stream;
};

// The loop both variants run; returns the host work's checksum so that it stays observable.
uint64_t runLoop(const Options& options, bool before, const Buffers& buffers, int iterations) {
    uint64_t checksum = 0;
    for (int i = 0; i < iterations; ++i) {
        for (int k = 0; k < kKernelsPerIteration; ++k)
            axpy<<<1056, 256, 0, buffers.stream>>>(buffers.y, buffers.x, 1e-6f, kElements);
        checksum ^= hostWork(options.hostWork, i);
        if (before)
            cudaStreamSynchronize(buffers.stream); // SYNC-SITE
    }
    if (!before)
        cudaStreamSynchronize(buffers.stream);
    return checksum;
}

// Ends this process's recording through the injected recorder's C entry points (docs/recorder.md);
// exits when the process is not being recorded.
void stopRecorder() {
    const char* path = getenv("CUDA_INJECTION64_PATH");
    void* recorder = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
    auto recording =
        recorder ? reinterpret_cast<int (*)()>(dlsym(recorder, "stallscope_recording")) : nullptr;
    auto stop =
        recorder ? reinterpret_cast<void (*)()>(dlsym(recorder, "stallscope_stop")) : nullptr;
    if (!recording || !stop || !recording()) {
        fprintf(stderr, "cuda_stream_sync: --rounds-after-recording: not being recorded\n");
        exit(2);
    }
    stop();
}

double seconds(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

int main(int argc, char** argv) {
    Options options = parse(argc, argv);
    Buffers buffers{};
    cudaMalloc(&buffers.x, kElements * sizeof(float));
    cudaMalloc(&buffers.y, kElements * sizeof(float));
    cudaMemset(buffers.x, 0, kElements * sizeof(float));
    cudaMemset(buffers.y, 0, kElements * sizeof(float));
    cudaStreamCreateWithFlags(&buffers.stream, cudaStreamNonBlocking);

    auto hostStart = std::chrono::steady_clock::now();
    uint64_t checksum = hostWork(options.hostWork, 0);
    fprintf(stderr, "cuda_stream_sync: host work %.1f us\n", seconds(hostStart) * 1e6);

    // One timed loop of a variant and its JSON line ("round" with --variant both).
    bool afterRecording = false;
    auto timedLoop = [&](bool before, int round) {
        cudaDeviceSynchronize();
        auto start = std::chrono::steady_clock::now();
        checksum ^= runLoop(options, before, buffers, options.iterations);
        cudaDeviceSynchronize();
        double loopSeconds = seconds(start);
        printf("{\"pair\": \"cuda_stream_sync\", \"variant\": \"%s\", \"loop_s\": %.6f, "
               "\"iterations\": %d, \"syncs_per_iteration\": %d, \"warmup\": %d",
               before ? "before" : "after", loopSeconds, options.iterations, before ? 1 : 0,
               options.warmup);
        if (round >= 0)
            printf(", \"round\": %d", round);
        if (afterRecording)
            printf(", \"after_recording\": true");
        printf("}\n");
        fflush(stdout);
    };
    auto alternateRounds = [&](int rounds) {
        checksum ^= runLoop(options, true, buffers, options.warmup);
        checksum ^= runLoop(options, false, buffers, options.warmup);
        for (int round = 0; round < rounds; ++round) {
            timedLoop(round % 2 == 0, round);
            timedLoop(round % 2 != 0, round);
        }
    };
    if (options.both) {
        alternateRounds(options.rounds);
    } else {
        checksum ^= runLoop(options, options.before, buffers, options.warmup);
        timedLoop(options.before, -1);
        if (options.roundsAfterRecording > 0 && options.before) {
            stopRecorder();
            afterRecording = true;
            alternateRounds(options.roundsAfterRecording);
        }
    }

    cudaError_t error = cudaGetLastError();
    if (error != cudaSuccess) {
        fprintf(stderr, "cuda_stream_sync: %s\n", cudaGetErrorString(error));
        return 1;
    }
    fprintf(stderr, "cuda_stream_sync: checksum %llx\n", static_cast<unsigned long long>(checksum));
    cudaStreamDestroy(buffers.stream);
    cudaFree(buffers.x);
    cudaFree(buffers.y);
    return 0;
}
