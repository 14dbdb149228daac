// The unwinder's cost for a 64-frame stack it has walked before: with the stack's rules in the
// CPU's caches, and after a 64 MiB sweep has evicted them (as a training step does between two
// syncs). Each frame is a function of its own (a template chain), so each PC has its own rule.
//   stallscope-bench-stack-walk [ROUNDS]
// Prints one line: depth, the first capture (the thread's set-up and every rule computed), and
// the medians of ROUNDS captures (default 50) in cache and after a sweep.
#include "recorder/stack_unwinder.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using stallscope::recorder::StackUnwinder;

namespace {

uintptr_t g_pcs[96];
int g_depth = 0;
double g_ns = 0;

__attribute__((noinline)) void timedCapture() {
    const auto start = std::chrono::steady_clock::now();
    g_depth = StackUnwinder::capture(g_pcs, 64);
    g_ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
}

template <int N> __attribute__((noinline)) void frame(volatile int* seed) {
    char local[16 + (N % 5) * 32]; // frames of different sizes, as real ones are
    local[0] = char(*seed);
    asm volatile("" ::"r"(local) : "memory");
    if constexpr (N == 0)
        timedCapture();
    else
        frame<N - 1>(seed);
    asm volatile("" ::: "memory"); // no tail call
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::max(1, atoi(argv[1])) : 50;
    std::vector<char> sweep(64 << 20);
    volatile int seed = 1;
    frame<70>(&seed);
    const double first = g_ns;
    std::vector<double> cached, swept;
    for (int i = 0; i < rounds; ++i) {
        frame<70>(&seed);
        cached.push_back(g_ns);
    }
    for (int i = 0; i < rounds; ++i) {
        memset(sweep.data(), i, sweep.size());
        frame<70>(&seed);
        swept.push_back(g_ns);
    }
    printf("depth=%d first_ns=%.0f cached_ns=%.0f after_sweep_ns=%.0f\n", g_depth, first,
           median(cached), median(swept));
    return 0;
}
