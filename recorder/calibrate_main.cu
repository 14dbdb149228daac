// stallscope-calibrate: what the recorder itself costs on this machine, for the what-if replay
// (docs/insights.md, "The recorder's own cost"). stallscope-record runs it before the target with
// the target's recorder settings (its STALLSCOPE_* environment) and hands the result to the
// target's recorder, which writes it into the session's meta.
//
// In one process (these machines' speed differs from one process to the next, not within one),
// first plain and then recorded through the public API (stallscope::start, as a linked-in program
// records itself), it times:
//   * a restart: a ~20 us kernel launched on an idle stream and waited for with
//     cudaStreamSynchronize. The kernel is the same both ways; what the recorder adds lies between
//     a sync's return and the next kernel's start (its callbacks, CUPTI's kernel tracing).
//   * a launch: the host time of one cudaLaunchKernel of an empty kernel while the GPU keeps up.
// Plain only, it also times a property of the GPU that no recording of a synced loop shows: how
// much later a kernel that streams memory starts after its predecessor when many launches are
// queued behind it on its stream (format::meta::kDeepQueueLaunches or more) than when few are
// (0.5-1.0 us on an H200 with kernels over two 64 MiB arrays; none with kernels that write
// nothing or whose data stays in L2: bench/RESULTS.md). A fix that removes a sync deepens the
// queue (docs/insights.md, "The GPU's deep-queue delay").
//
//   stallscope-calibrate --output FILE --session FILE [--blocks N]
// writes "restart_plain_ns=N restart_recorded_ns=N launch_plain_ns=N launch_recorded_ns=N
// queue_shallow_gap_ns=N queue_deep_gap_ns=N" to --output (the medians); --session is where the
// recorded phase's session goes (the caller deletes it); --blocks sets the spinning kernel's grid
// (default 1; 1 to 1,056 blocks measured the same on an H200: bench/RESULTS.md). Exit 0 on success;
// 1 with the reason on stderr.
#include "format/session_meta.h"
#include "stallscope/recorder.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr long long kSpinNs = 20'000;
// A GPU that sat idle clocks up over the first tens of milliseconds of work, and the plain phase
// comes first: both phases start only after this much work (a probe that started cold measured
// the recorded phase as fast as the plain one, H200).
constexpr int64_t kWarmupNs = 300'000'000;
constexpr int kRounds = 5;
constexpr int kCyclesPerRound = 300;
// Fewer than the launch queue holds, so a launch never waits for queue space.
constexpr int kLaunchesPerRound = 500;

// The GPU's clock (ns).
__device__ unsigned long long globalTimer() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void spin(long long ns) {
    const unsigned long long start = globalTimer();
    while (static_cast<long long>(globalTimer() - start) < ns) {
    }
}

__global__ void empty() {}

// Scales `data` in place, noting its first block's start and its last block's end in `slot`, and
// telling the host (mapped memory) that it started.
__global__ void scaleTimed(float* data, int n, unsigned long long* starts, unsigned long long* ends,
                           int slot, volatile int* started) {
    if (threadIdx.x == 0)
        atomicMin(&starts[slot], globalTimer());
    if (threadIdx.x == 0 && blockIdx.x == 0)
        *started = slot;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        data[i] = data[i] * 0.999f + 1e-6f;
    __syncthreads();
    if (threadIdx.x == 0)
        atomicMax(&ends[slot], globalTimer());
}

int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

int64_t median(std::vector<int64_t> values) {
    if (values.empty())
        return 0;
    std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
    return values[values.size() / 2];
}

struct Medians {
    int64_t restartNs = 0;
    int64_t launchNs = 0;
};

bool check(cudaError_t result, const char* what) {
    if (result == cudaSuccess)
        return true;
    fprintf(stderr, "stallscope-calibrate: %s: %s\n", what, cudaGetErrorString(result));
    return false;
}

bool measure(cudaStream_t stream, int blocks, Medians* out) {
    for (const int64_t start = nowNs(); nowNs() - start < kWarmupNs;) {
        spin<<<blocks, 32, 0, stream>>>(kSpinNs);
        empty<<<1, 32, 0, stream>>>();
        cudaStreamSynchronize(stream);
    }
    std::vector<int64_t> cycles, launches;
    cycles.reserve(kRounds * kCyclesPerRound);
    launches.reserve(kRounds * kLaunchesPerRound);
    for (int round = 0; round < kRounds; ++round) {
        for (int i = 0; i < kCyclesPerRound; ++i) {
            const int64_t start = nowNs();
            spin<<<blocks, 32, 0, stream>>>(kSpinNs);
            cudaStreamSynchronize(stream);
            cycles.push_back(nowNs() - start);
        }
        for (int i = 0; i < kLaunchesPerRound; ++i) {
            const int64_t start = nowNs();
            empty<<<1, 32, 0, stream>>>();
            launches.push_back(nowNs() - start);
        }
        if (!check(cudaStreamSynchronize(stream), "cudaStreamSynchronize"))
            return false;
    }
    out->restartNs = median(std::move(cycles));
    out->launchNs = median(std::move(launches));
    return check(cudaGetLastError(), "a kernel launch");
}

// The queue measurement's kernels per depth, and their data: 128 MiB, more than any GPU's L2
// holds (~55 us a kernel on an H200). The delay is a DRAM-streaming kernel's: kernels whose data
// stayed in L2 (16 MiB) or that wrote nothing showed none (bench/RESULTS.md).
constexpr int kQueuedKernels = 400;
constexpr int kQueueElements = 32 << 20;
constexpr int kShallowDepth = 2;
constexpr int kDeepDepth = 32;
static_assert(kShallowDepth < stallscope::format::meta::kDeepQueueLaunches &&
              kDeepDepth > 2 * stallscope::format::meta::kDeepQueueLaunches);

struct QueueGaps {
    int64_t shallowNs = 0;
    int64_t deepNs = 0;
};

// The median gap (a kernel's start - its predecessor's end, on the GPU's clock) while the host
// keeps `depth` kernels queued: kernel i is launched once kernel i - depth has started.
bool queueGap(cudaStream_t stream, int depth, float* data, unsigned long long* starts,
              unsigned long long* ends, volatile int* startedHost, int* startedDevice,
              int64_t* gapNs) {
    if (!check(cudaMemset(starts, 0xff, kQueuedKernels * sizeof(*starts)), "cudaMemset") ||
        !check(cudaMemset(ends, 0, kQueuedKernels * sizeof(*ends)), "cudaMemset") ||
        !check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"))
        return false;
    *startedHost = -1;
    const int64_t deadline = nowNs() + 10'000'000'000;
    for (int slot = 0; slot < kQueuedKernels; ++slot) {
        while (*startedHost < slot - depth)
            if (nowNs() > deadline) {
                fprintf(stderr, "stallscope-calibrate: the queued kernels did not start\n");
                return false;
            }
        scaleTimed<<<1056, 256, 0, stream>>>(data, kQueueElements, starts, ends, slot,
                                             startedDevice);
    }
    std::vector<unsigned long long> s(kQueuedKernels), e(kQueuedKernels);
    if (!check(cudaStreamSynchronize(stream), "cudaStreamSynchronize") ||
        !check(cudaMemcpy(s.data(), starts, s.size() * sizeof(s[0]), cudaMemcpyDeviceToHost),
               "cudaMemcpy") ||
        !check(cudaMemcpy(e.data(), ends, e.size() * sizeof(e[0]), cudaMemcpyDeviceToHost),
               "cudaMemcpy"))
        return false;
    std::vector<int64_t> gaps;
    // The first kernels of each run queue up behind an idle GPU: they are left out.
    for (int i = kDeepDepth; i < kQueuedKernels; ++i)
        gaps.push_back(static_cast<int64_t>(s[i]) - static_cast<int64_t>(e[i - 1]));
    *gapNs = median(std::move(gaps));
    return true;
}

bool measureQueueGaps(cudaStream_t stream, QueueGaps* out) {
    float* data = nullptr;
    unsigned long long *starts = nullptr, *ends = nullptr;
    int* startedHost = nullptr;
    int* startedDevice = nullptr;
    bool ok =
        check(cudaMalloc(&data, kQueueElements * sizeof(float)), "cudaMalloc") &&
        check(cudaMemset(data, 0, kQueueElements * sizeof(float)), "cudaMemset") &&
        check(cudaMalloc(&starts, kQueuedKernels * sizeof(*starts)), "cudaMalloc") &&
        check(cudaMalloc(&ends, kQueuedKernels * sizeof(*ends)), "cudaMalloc") &&
        check(cudaHostAlloc(&startedHost, sizeof(int), cudaHostAllocMapped), "cudaHostAlloc") &&
        check(cudaHostGetDevicePointer(&startedDevice, startedHost, 0), "cudaHostGetDevicePointer");
    // Alternating depths, so that a drift of the machine's speed touches both alike.
    std::vector<int64_t> shallow, deep;
    for (int round = 0; ok && round < 3; ++round) {
        int64_t gap = 0;
        ok = queueGap(stream, kShallowDepth, data, starts, ends, startedHost, startedDevice, &gap);
        shallow.push_back(gap);
        ok = ok &&
             queueGap(stream, kDeepDepth, data, starts, ends, startedHost, startedDevice, &gap);
        deep.push_back(gap);
    }
    out->shallowNs = median(std::move(shallow));
    out->deepNs = median(std::move(deep));
    cudaFree(data);
    cudaFree(starts);
    cudaFree(ends);
    cudaFreeHost(startedHost);
    return ok;
}

} // namespace

int main(int argc, char** argv) {
    std::string output, session;
    int blocks = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--output"))
            output = argv[i + 1];
        else if (!strcmp(argv[i], "--blocks"))
            blocks = std::max(1, atoi(argv[i + 1]));
        else if (!strcmp(argv[i], "--session"))
            session = argv[i + 1];
    }
    if (output.empty() || session.empty()) {
        fprintf(stderr, "usage: stallscope-calibrate --output FILE --session FILE\n");
        return 2;
    }
    cudaStream_t stream = nullptr;
    if (!check(cudaFree(nullptr), "CUDA") ||
        !check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate"))
        return 1;
    Medians plain, recorded;
    if (!measure(stream, blocks, &plain))
        return 1;
    // Without its numbers (no room for its data, say) the delay is 0, and the recorder's costs
    // are still measured: the error it left is cleared first.
    QueueGaps queue;
    if (!measureQueueGaps(stream, &queue)) {
        queue = {};
        cudaStreamSynchronize(stream);
        cudaGetLastError();
    }
    stallscope::Options options;
    options.outputPath = session.c_str();
    if (const char* stacks = getenv("STALLSCOPE_STACKS"))
        options.stacks = strcmp(stacks, "0") != 0;
    if (const char* depth = getenv("STALLSCOPE_STACK_DEPTH"))
        options.stackDepth = atoi(depth);
    if (const char* flushMs = getenv("STALLSCOPE_FLUSH_MS"))
        options.flushMs = atoi(flushMs);
    if (!stallscope::start(options)) {
        fprintf(stderr, "stallscope-calibrate: the recorder did not start\n");
        return 1;
    }
    const bool measured = measure(stream, blocks, &recorded);
    stallscope::stop();
    if (!measured)
        return 1;
    FILE* file = fopen(output.c_str(), "w");
    if (!file) {
        fprintf(stderr, "stallscope-calibrate: cannot write %s\n", output.c_str());
        return 1;
    }
    fprintf(file,
            "restart_plain_ns=%lld restart_recorded_ns=%lld launch_plain_ns=%lld "
            "launch_recorded_ns=%lld queue_shallow_gap_ns=%lld queue_deep_gap_ns=%lld\n",
            static_cast<long long>(plain.restartNs), static_cast<long long>(recorded.restartNs),
            static_cast<long long>(plain.launchNs), static_cast<long long>(recorded.launchNs),
            static_cast<long long>(queue.shallowNs), static_cast<long long>(queue.deepNs));
    return fclose(file) == 0 ? 0 : 1;
}
