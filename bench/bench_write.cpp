// (a) Writer throughput: events per second while generating a synthetic session with the
// SessionWriter (the recorder's writer), create to close. Goal (issue 2): >= 1 million events/s
// on the 2-core reference machine for a 10-million-event session.
//
//   stallscope-bench-write [--events=10000000] [--out=/tmp/stallscope-bench-write.stallscope]
//                          [Google Benchmark flags]
#include "bench/bench_support.h"
#include "bench/run_benchmarks.h"
#include "model/testing/synthetic_session.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>

namespace {

int64_t g_events = 10'000'000;
std::string g_out = "/tmp/stallscope-bench-write.stallscope";

void writeSyntheticSession(benchmark::State& state) {
    stallscope::model::SyntheticOptions options;
    options.seed = 1;
    options.targetEvents = g_events;
    stallscope::model::SyntheticStats stats;
    for (auto _ : state) {
        std::string error;
        if (!stallscope::model::writeSyntheticSession(g_out, options, &stats, &error)) {
            state.SkipWithError(error.c_str());
            return;
        }
        state.SetIterationTime(stats.writeSeconds);
    }
    const double events = static_cast<double>(stats.totalEvents());
    state.counters["events"] = events;
    state.counters["events_per_s"] = events / stats.writeSeconds;
    // Without finish() (indexes + WAL checkpoint): the rate the recorder's writer thread sustains.
    state.counters["insert_events_per_s"] = events / (stats.writeSeconds - stats.finishSeconds);
    state.counters["finish_s"] = stats.finishSeconds;
    if (std::FILE* f = std::fopen(g_out.c_str(), "rb")) {
        std::fseek(f, 0, SEEK_END);
        state.counters["file_bytes_per_event"] = static_cast<double>(std::ftell(f)) / events;
        std::fclose(f);
    }
}

} // namespace

int main(int argc, char** argv) {
    g_events = std::stoll(stallscope::bench::takeFlag(argc, argv, "events", "10000000"));
    g_out = stallscope::bench::takeFlag(argc, argv, "out", g_out);
    benchmark::RegisterBenchmark("WriteSyntheticSession", writeSyntheticSession)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1)
        ->Repetitions(3)
        ->ReportAggregatesOnly(false);
    if (const int status = stallscope::bench::runRegisteredBenchmarks(argc, argv))
        return status;
    std::remove(g_out.c_str());
    return 0;
}
