// The end of a Google Benchmark program's main(), shared by the benchmarks that take no
// arguments of their own beyond what bench_support.h's takeFlag() already removed.
#pragma once

#include <benchmark/benchmark.h>

namespace stallscope::bench {

// Runs the registered benchmarks under Google Benchmark's flags in argv. Returns main()'s status:
// 1 when argv holds an argument neither we nor Google Benchmark know, else 0.
inline int runRegisteredBenchmarks(int& argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

// Registers `function` as one timed run per repetition, in milliseconds of real time, reporting
// the aggregates (median, mean, spread) of `repetitions` runs: how the session benchmarks time
// one whole operation on a large session.
template <typename Function>
benchmark::internal::Benchmark* registerWholeRuns(const char* name, Function function,
                                                  int repetitions = 5) {
    return benchmark::RegisterBenchmark(name, function)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1)
        ->Repetitions(repetitions)
        ->ReportAggregatesOnly(true);
}

} // namespace stallscope::bench
