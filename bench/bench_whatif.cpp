// Issue 12: the what-if engine on a 10-million-event synthetic session —
// (a) InsightEngine::analyze (graph, unmodified replay, one replay per simulated site, all
//     findings), median of several runs (goal: <= 2 s on the 2-core reference machine);
// (b) memory: the run graph's bytes and the peak RSS growth of the first analysis next to the
//     loaded model's event bytes (goal: <= 1.5x the loaded model).
//
//   stallscope-bench-whatif [--session=FILE] [--events=10000000] [Google Benchmark flags]
#include "bench/bench_session.h"
#include "bench/bench_support.h"
#include "bench/run_benchmarks.h"
#include "model/analysis/insight_engine.h"
#include "model/session/session_loader.h"
#include "model/whatif/run_graph.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <string>

namespace {

std::shared_ptr<stallscope::model::Session> g_session;
std::unique_ptr<stallscope::model::SessionDatabase> g_database;

void analyzeSession(benchmark::State& state) {
    size_t findings = 0;
    for (auto _ : state) {
        const stallscope::model::InsightReport report =
            stallscope::model::InsightEngine::analyze(*g_session, *g_database);
        findings = report.insights.size();
        benchmark::DoNotOptimize(report.insights.data());
    }
    state.counters["findings"] = static_cast<double>(findings);
}

} // namespace

int main(int argc, char** argv) {
    using namespace stallscope;
    const std::string path = bench::syntheticBenchSession(argc, argv, "stallscope-bench-whatif");
    if (path.empty())
        return 1;
    model::LoadResult loaded = model::SessionLoader::load(path);
    if (!loaded.ok()) {
        std::fprintf(stderr, "stallscope-bench-whatif: %s\n", loaded.error.c_str());
        return 1;
    }
    g_session = std::move(loaded.session);
    g_database = std::make_unique<model::SessionDatabase>();
    std::string error;
    if (!g_database->open(path, &error)) {
        std::fprintf(stderr, "stallscope-bench-whatif: %s\n", error.c_str());
        return 1;
    }

    // (b) first, in this fresh process: the peak growth of one analysis.
    const int64_t before = bench::residentBytes();
    const int64_t peakBefore = bench::peakResidentBytes();
    const model::InsightReport report = model::InsightEngine::analyze(*g_session, *g_database);
    const int64_t peakAfter = bench::peakResidentBytes();
    const double modelBytes = static_cast<double>(g_session->eventMemoryBytes());
    const double graphBytes =
        report.runGraph ? static_cast<double>(report.runGraph->memoryBytes()) : 0.0;
    char text[64];
    auto context = [&](const char* key, double value) {
        std::snprintf(text, sizeof text, "%.3f", value);
        benchmark::AddCustomContext(key, text);
    };
    context("session_events", static_cast<double>(g_session->counts.total()));
    context("model_event_bytes_mb", modelBytes / 1e6);
    context("run_graph_bytes_mb", graphBytes / 1e6);
    context("peak_rss_growth_mb",
            static_cast<double>(std::max(peakAfter, peakBefore) - before) / 1e6);
    context("peak_growth_over_model",
            static_cast<double>(std::max(peakAfter, peakBefore) - before) / modelBytes);
    context("findings", static_cast<double>(report.insights.size()));
    context("first_analysis_s", report.analysisSeconds);

    bench::registerWholeRuns("AnalyzeWithReplay", analyzeSession);
    return stallscope::bench::runRegisteredBenchmarks(argc, argv);
}
