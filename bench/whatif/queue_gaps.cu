// How far apart the GPU starts the kernels of one stream, by how the host launched them (plain,
// no recorder): the question behind the cuda_stream_sync pair's "after" loop, whose kernels ran
// further apart than the "before" recording's queued kernels.
//   queue_gaps [--kernel axpy|spin] [--host-work N]
// Each kernel writes its first block's start and its last block's end (%globaltimer) into its
// own slot. For each scenario it prints, per range of kernel indexes, the median gap (start -
// previous end), the median kernel duration, and the share of launch calls that blocked the host
// (> 20 us: the launch queue was full).
#include "bench/whatif/host_work.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr int kElements = 16 << 20; // the pair's arrays: ~57 us per axpy on an H200
constexpr int kMaxKernels = 16000;

__device__ unsigned long long globalTimer() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// The slot of the latest kernel that started, in mapped host memory (depth-controlled runs).
__device__ volatile int* startedSlot = nullptr;

__global__ void axpyTimed(float* y, const float* x, float a, int n, unsigned long long* starts,
                          unsigned long long* ends, int slot) {
    if (threadIdx.x == 0)
        atomicMin(&starts[slot], globalTimer());
    if (threadIdx.x == 0 && blockIdx.x == 0 && startedSlot)
        *startedSlot = slot;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = a * x[i] + y[i];
    __syncthreads();
    if (threadIdx.x == 0)
        atomicMax(&ends[slot], globalTimer());
}

__global__ void spinTimed(unsigned long long ns, unsigned long long* starts,
                          unsigned long long* ends, int slot) {
    const unsigned long long begin = globalTimer();
    if (threadIdx.x == 0)
        atomicMin(&starts[slot], begin);
    if (threadIdx.x == 0 && blockIdx.x == 0 && startedSlot)
        *startedSlot = slot;
    while (globalTimer() - begin < ns) {
    }
    __syncthreads();
    if (threadIdx.x == 0)
        atomicMax(&ends[slot], globalTimer());
}

// The wall-clock time of day (HH:MM:SS.mmm, UTC), to match nvidia-smi's samples.
std::string clockTime() {
    const auto now = std::chrono::system_clock::now();
    const time_t seconds = std::chrono::system_clock::to_time_t(now);
    const int ms = static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() %
        1000);
    char text[32];
    strftime(text, sizeof text, "%H:%M:%S", gmtime(&seconds));
    return std::string(text) + "." + std::to_string(1000 + ms).substr(1);
}

struct Run {
    bool spin = false;
    int blocks = 1056;
    int threads = 256;
    volatile int* started = nullptr; // host view of startedSlot
    int hostWork = 40000;
    float* x = nullptr;
    float* y = nullptr;
    cudaStream_t stream{};
    unsigned long long* starts = nullptr;
    unsigned long long* ends = nullptr;
    std::vector<double> launchUs;
    uint64_t checksum = 0;

    void launch(int slot) {
        auto before = std::chrono::steady_clock::now();
        if (spin)
            spinTimed<<<blocks, threads, 0, stream>>>(57'000, starts, ends, slot);
        else
            axpyTimed<<<blocks, threads, 0, stream>>>(y, x, 1e-6f, kElements, starts, ends, slot);
        launchUs[slot] =
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - before)
                .count();
    }

    void reset(int kernels) {
        cudaDeviceSynchronize();
        cudaMemset(starts, 0xff, kernels * sizeof(unsigned long long));
        cudaMemset(ends, 0, kernels * sizeof(unsigned long long));
        cudaDeviceSynchronize();
        launchUs.assign(kernels, 0.0);
    }

    // `iterations` of (`perIteration` launches, host work when `work`, a sync when `sync`).
    void pattern(int iterations, int perIteration, bool work, bool sync) {
        int slot = 0;
        for (int i = 0; i < iterations; ++i) {
            for (int k = 0; k < perIteration; ++k)
                launch(slot++);
            if (work)
                checksum ^= ::hostWork(hostWork, i);
            if (sync)
                cudaStreamSynchronize(stream);
        }
        cudaStreamSynchronize(stream);
    }

    // Launches `kernels` kernels, the host spinning `paceUs` after each launch.
    void paced(int kernels, double paceUs) {
        for (int slot = 0; slot < kernels; ++slot) {
            launch(slot);
            const auto until = std::chrono::steady_clock::now() +
                               std::chrono::nanoseconds(static_cast<int64_t>(paceUs * 1e3));
            while (std::chrono::steady_clock::now() < until) {
            }
        }
        cudaStreamSynchronize(stream);
    }

    // Keeps `depth` kernels queued: kernel i is launched once kernel i - depth has started.
    void depthControlled(int kernels, int depth) {
        *started = -1;
        for (int slot = 0; slot < kernels; ++slot) {
            while (*started < slot - depth) {
            }
            launch(slot);
        }
        cudaStreamSynchronize(stream);
    }

    // The kernels' first-block starts and last-block ends, in us on the GPU's clock.
    struct Times {
        std::vector<double> start, end;
        double gap(int i) const { return start[i] - end[i - 1]; } // to the previous kernel
        double duration(int i) const { return end[i] - start[i]; }
    };
    Times times(int kernels) const {
        std::vector<unsigned long long> s(kernels), e(kernels);
        cudaMemcpy(s.data(), starts, kernels * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
        cudaMemcpy(e.data(), ends, kernels * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
        // Relative to the first start, in integers: the clock counts ns since 1970, and a double
        // of that has a 256 ns step.
        Times t;
        for (int i = 0; i < kernels; ++i) {
            t.start.push_back(static_cast<double>(static_cast<int64_t>(s[i] - s[0])) / 1e3);
            t.end.push_back(static_cast<double>(static_cast<int64_t>(e[i] - s[0])) / 1e3);
        }
        return t;
    }

    // Median gap of the kernels at `position` of each run of `perIteration` launches.
    void reportPositions(const char* name, int kernels, int perIteration) {
        const Times t = times(kernels);
        printf("%-28s gap median by position:", name);
        for (int position = 0; position < perIteration; ++position) {
            std::vector<double> gaps;
            for (int i = std::max(position, 1); i < kernels; i += perIteration)
                if (i % perIteration == position)
                    gaps.push_back(t.gap(i));
            printf(" %6.3f", median(gaps));
        }
        printf(" us\n");
    }

    // Median gap over the kernels whose gap was under 10 us (queued, not starved).
    void reportQueued(const char* name, int kernels) {
        const Times t = times(kernels);
        std::vector<double> gaps;
        for (int i = 1; i < kernels; ++i) {
            if (t.gap(i) < 10.0)
                gaps.push_back(t.gap(i));
        }
        printf("%-28s queued gap median %6.3f us over %zu of %d kernels\n", name, median(gaps),
               gaps.size(), kernels);
    }

    static double median(std::vector<double> values) {
        if (values.empty())
            return 0;
        std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
        return values[values.size() / 2];
    }

    // Median gap and duration over kernels [first, last) (gap: to the previous kernel), with
    // `skipEvery`: leave out the kernels whose index % skipEvery == 0 (restarts after a sync).
    void report(const char* name, int kernels, int first, int last, int skipEvery) {
        const Times t = times(kernels);
        std::vector<double> gaps, durations;
        int blocked = 0;
        for (int i = std::max(first, 1); i < last && i < kernels; ++i) {
            if (skipEvery > 0 && i % skipEvery == 0)
                continue;
            gaps.push_back(t.gap(i));
            durations.push_back(t.duration(i));
        }
        for (int i = first; i < last && i < kernels; ++i)
            blocked += launchUs[i] > 20.0;
        const double wall = (t.end[std::min(last, kernels) - 1] - t.start[first]) /
                            (std::min(last, kernels) - first);
        printf("[%s] %-28s kernels [%5d,%5d): gap median %6.3f us, duration %7.3f us, "
               "per kernel %7.3f us, launches blocked %5.1f %%\n",
               clockTime().c_str(), name, first, last, median(gaps), median(durations), wall,
               100.0 * blocked / std::max(1, std::min(last, kernels) - first));
    }

    int firstBlocked(int kernels) const {
        for (int i = 0; i < kernels; ++i)
            if (launchUs[i] > 20.0)
                return i;
        return -1;
    }
};

} // namespace

int main(int argc, char** argv) {
    Run run;
    bool depthSweep = false;
    for (int i = 1; i < argc; ++i)
        depthSweep |= !strcmp(argv[i], "--depth-sweep");
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--kernel"))
            run.spin = !strcmp(argv[i + 1], "spin");
        else if (!strcmp(argv[i], "--threads"))
            run.threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--host-work"))
            run.hostWork = atoi(argv[i + 1]);
    }
    cudaMalloc(&run.x, kElements * sizeof(float));
    cudaMalloc(&run.y, kElements * sizeof(float));
    cudaMemset(run.x, 0, kElements * sizeof(float));
    cudaMemset(run.y, 0, kElements * sizeof(float));
    cudaMalloc(&run.starts, kMaxKernels * sizeof(unsigned long long));
    cudaMalloc(&run.ends, kMaxKernels * sizeof(unsigned long long));
    cudaStreamCreateWithFlags(&run.stream, cudaStreamNonBlocking);
    const char* kernel = run.spin ? "spin" : "axpy";
    int* startedHost = nullptr;
    cudaHostAlloc(&startedHost, sizeof(int), cudaHostAllocMapped);
    int* startedDevice = nullptr;
    cudaHostGetDevicePointer(&startedDevice, startedHost, 0);
    cudaMemcpyToSymbol(startedSlot, &startedDevice, sizeof(startedDevice));
    run.started = startedHost;
    if (depthSweep) {
        run.reset(3000);
        run.pattern(1000, 3, false, true);
        for (int blocks : {1056, 132}) {
            run.blocks = blocks;
            for (int repeat = 0; repeat < 2; ++repeat)
                for (int depth : {1, 2, 4, 5, 6, 7, 8, 9, 16, 64, 512}) {
                    run.reset(1200);
                    run.depthControlled(1200, depth);
                    char name[64];
                    snprintf(name, sizeof name, "%s %d blocks, depth %d", kernel, blocks, depth);
                    run.reportQueued(name, 1200);
                }
        }
        return 0;
    }

    // Warm-up: clocks up, modules loaded.
    run.reset(3000);
    run.pattern(1000, 3, false, true);

    for (int repeat = 0; repeat < 2; ++repeat) {
        printf("--- %s, positions and pacing, repeat %d\n", kernel, repeat);
        run.reset(1600);
        run.pattern(200, 8, false, true);
        run.reportPositions("8 launches + sync", 1600, 8);
        run.reset(1600);
        run.pattern(200, 8, true, true);
        run.reportPositions("8 launches + work + sync", 1600, 8);
        for (double pace : {20.0, 45.0, 55.0, 58.0, 62.0}) {
            run.reset(2000);
            run.paced(2000, pace);
            char name[64];
            snprintf(name, sizeof name, "paced %.0f us", pace);
            run.reportQueued(name, 2000);
        }
    }
    for (int repeat = 0; repeat < 2; ++repeat) {
        printf("--- %s, repeat %d\n", kernel, repeat);
        // The pair's "before": three launches, host work, a sync.
        run.reset(900);
        run.pattern(300, 3, true, true);
        run.report("before (3+work+sync)", 900, 0, 900, 3);

        // Back to back, below and past the launch queue's capacity.
        run.reset(600);
        run.pattern(1, 600, false, false);
        run.report("burst 600", 600, 0, 600, 0);
        printf("  first blocked launch: %d\n", run.firstBlocked(600));

        run.reset(6000);
        run.pattern(1, 6000, false, false);
        for (auto [first, last] : {std::pair{0, 500}, {500, 1000}, {1000, 2000}, {2000, 6000}})
            run.report("burst 6000", 6000, first, last, 0);
        printf("  first blocked launch: %d\n", run.firstBlocked(6000));

        // The pair's "after": three launches and host work per iteration, one sync at the end.
        run.reset(15000);
        run.pattern(5000, 3, true, false);
        for (auto [first, last] :
             {std::pair{0, 300}, {300, 1500}, {1500, 3000}, {3000, 9000}, {9000, 15000}})
            run.report("after (3+work)x5000", 15000, first, last, 0);
        printf("  first blocked launch: %d\n", run.firstBlocked(15000));
    }
    fprintf(stderr, "checksum %llx: %s\n", static_cast<unsigned long long>(run.checksum),
            cudaGetErrorString(cudaGetLastError()));
    return 0;
}
