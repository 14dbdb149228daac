// (b) Open-to-loaded-model time: SessionLoader::load on a 10-million-event synthetic session,
//     median of several runs (goal: <= 2 s on the 2-core reference machine).
// (c) Resident memory per event after loading: the RSS delta of the first load in this fresh
//     process divided by the loaded events, next to Session::eventMemoryBytes() (goal: <= 48 B).
//
//   stallscope-bench-load [--session=FILE] [--events=10000000] [--read-pages=1]
//                         [--column-cache=0] [Google Benchmark flags]
// The session is generated (seed 1) when FILE does not exist, and kept for the next run.
// --read-pages=0 reads the event tables through SQLite only (LoadOptions::readPages), the way
// every load went before format/btree_scanner.h. --column-cache=1 times the reopen from the column
// cache (model/session/column_cache.h; $STALLSCOPE_COLUMN_CACHE): the first load writes the entry
// when the cache has none, every timed load reads it.
#include "bench/bench_session.h"
#include "bench/bench_support.h"
#include "bench/run_benchmarks.h"
#include "model/session/column_cache.h"
#include "model/session/session_loader.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace {

std::string g_session;
stallscope::model::LoadOptions g_options;

void loadSession(benchmark::State& state) {
    int64_t events = 0;
    for (auto _ : state) {
        stallscope::model::LoadResult result =
            stallscope::model::SessionLoader::load(g_session, g_options);
        if (!result.ok()) {
            state.SkipWithError(result.error.c_str());
            return;
        }
        events = result.session->counts.total();
        benchmark::DoNotOptimize(result.session.get());
        state.PauseTiming(); // freeing the model is not part of opening it
        result.session.reset();
        state.ResumeTiming();
    }
    state.counters["events"] = static_cast<double>(events);
}

} // namespace

int main(int argc, char** argv) {
    using namespace stallscope;
    g_options.readPages = bench::takeFlag(argc, argv, "read-pages", "1") != "0";
    g_options.useColumnCache = bench::takeFlag(argc, argv, "column-cache", "0") != "0";
    g_session = bench::syntheticBenchSession(argc, argv, "stallscope-bench-load");
    if (g_session.empty())
        return 1;

    // (c) first, in a fresh process, before other loads have grown the heap.
    const int64_t before = bench::residentBytes();
    const int64_t peakBefore = bench::peakResidentBytes();
    model::LoadResult result = model::SessionLoader::load(g_session, g_options);
    if (!result.ok()) {
        std::fprintf(stderr, "stallscope-bench-load: %s\n", result.error.c_str());
        return 1;
    }
    const int64_t after = bench::residentBytes();
    const int64_t peakAfter = bench::peakResidentBytes();
    const double events = static_cast<double>(result.session->counts.total());
    char text[64];
    auto context = [&](const char* key, double value) {
        std::snprintf(text, sizeof text, "%.2f", value);
        benchmark::AddCustomContext(key, text);
    };
    context("session_events", events);
    context("tables_read_from_pages", result.tablesReadFromPages);
    context("columns_from_cache", result.columnsFromCache);
    if (g_options.useColumnCache && !result.columnsFromCache) {
        std::string error;
        if (!model::writeCachedColumns(model::columnCacheFolder(), *result.session, &error, 0)) {
            std::fprintf(stderr, "stallscope-bench-load: %s\n", error.c_str());
            return 1;
        }
    }
    context("rss_delta_bytes_per_event", static_cast<double>(after - before) / events);
    context("event_memory_bytes_per_event",
            static_cast<double>(result.session->eventMemoryBytes()) / events);
    context("peak_rss_delta_bytes_per_event",
            static_cast<double>(std::max(peakAfter, peakBefore) - before) / events);
    result.session.reset();

    stallscope::bench::registerWholeRuns("LoadSession", loadSession);
    return stallscope::bench::runRegisteredBenchmarks(argc, argv);
}
