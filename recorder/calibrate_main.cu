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
//
//   stallscope-calibrate --output FILE --session FILE [--blocks N]
// writes "restart_plain_ns=N restart_recorded_ns=N launch_plain_ns=N launch_recorded_ns=N" to
// --output (the medians); --session is where the recorded phase's session goes (the caller
// deletes it); --blocks sets the spinning kernel's grid (default 1; 1 to 1,056 blocks measured
// the same on an H200: bench/RESULTS.md). Exit 0 on success; 1 with the reason on stderr.
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

__global__ void spin(long long ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (static_cast<long long>(now - start) < ns);
}

__global__ void empty() {}

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
            "launch_recorded_ns=%lld\n",
            static_cast<long long>(plain.restartNs), static_cast<long long>(recorded.restartNs),
            static_cast<long long>(plain.launchNs), static_cast<long long>(recorded.launchNs));
    return fclose(file) == 0 ? 0 : 1;
}
