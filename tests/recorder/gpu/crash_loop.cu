// GPU test program for how a recording ends (issue 14): a launch loop with a stream sync each
// iteration runs for ~1.5 s, writes the CLOCK_MONOTONIC time of its last completed sync to
// PROGRESS_FILE, then ends the way MODE says:
//   segv   writes through a null pointer        abort  abort()
//   term   raise(SIGTERM)                        int    raise(SIGINT)
//   kill   kill(getpid(), SIGKILL)               exit   returns 0
// The GPU test compares that time with the last sync in the session: the events lost at the end.
#include <cuda_runtime.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unistd.h>

__global__ void tick(float* data) {
    data[threadIdx.x] += 1.0f;
}

static long long monotonicNs() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

int main(int argc, char** argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: crash_loop segv|abort|term|int|kill|exit PROGRESS_FILE\n");
        return 2;
    }
    const char* mode = argv[1];
    float* data = nullptr;
    cudaStream_t stream;
    if (cudaMalloc(&data, 256 * sizeof(float)) != cudaSuccess ||
        cudaStreamCreate(&stream) != cudaSuccess) {
        fprintf(stderr, "crash_loop: no CUDA device\n");
        return 2;
    }
    const long long start = monotonicNs();
    long long lastSync = start;
    while (lastSync - start < 1500000000ll) {
        for (int k = 0; k < 4; ++k)
            tick<<<1, 256, 0, stream>>>(data);
        cudaStreamSynchronize(stream);
        lastSync = monotonicNs();
    }
    FILE* progress = fopen(argv[2], "w");
    if (!progress)
        return 2;
    fprintf(progress, "%lld\n", lastSync);
    fclose(progress);
    if (!strcmp(mode, "segv"))
        *(volatile int*)nullptr = 1;
    else if (!strcmp(mode, "abort"))
        abort();
    else if (!strcmp(mode, "term"))
        raise(SIGTERM);
    else if (!strcmp(mode, "int"))
        raise(SIGINT);
    else if (!strcmp(mode, "kill"))
        kill(getpid(), SIGKILL);
    return 0;
}
