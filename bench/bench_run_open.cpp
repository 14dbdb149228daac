// Opening a multi-GPU run (issue 16): a folder of R rank sessions of N events each, merged into
// one session (model/interop/run_merge.h) and loaded. Goal: 8 ranks × 1 M events open in ≤ 3 s.
//   cold  the first open: every input checked, merged into the import cache, the result loaded
//   warm  opening it again: the cached merge loaded
// Runs alternate (cold, warm, cold, …); medians of --runs each. The merged file is left at the
// printed path for stallscope-bench-timeline --session=PATH (the ≤ 16 ms frame goal).
//
//   stallscope-bench-run-open [--ranks=8] [--events=1000000] [--runs=5] [--dir=PATH]
#include "bench/bench_support.h"
#include "format/sqlite_database.h"
#include "model/interop/run_merge.h"
#include "model/testing/synthetic_session.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace stallscope;

namespace {

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

// Rank r's session: a synthetic single-GPU training run (seed r) with its process_ranks row.
bool writeRank(const std::string& path, int rank, int ranks, int64_t events) {
    model::SyntheticOptions options;
    options.seed = static_cast<uint64_t>(rank + 1);
    options.targetEvents = events;
    std::string error;
    if (!model::writeSyntheticSession(path, options, nullptr, &error)) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return false;
    }
    format::Database db;
    if (!db.open(path, format::Database::Mode::ReadWrite, &error) ||
        !db.exec("UPDATE processes SET pid = pid + " + std::to_string(rank) +
                     "; INSERT INTO process_ranks (process_id, rank, local_rank, world_size, "
                     "launcher) VALUES (1, " +
                     std::to_string(rank) + ", " + std::to_string(rank) + ", " +
                     std::to_string(ranks) + ", 'torchrun')",
                 &error)) {
        std::fprintf(stderr, "%s: %s\n", path.c_str(), error.c_str());
        return false;
    }
    return true;
}

} // namespace

int main(int argc, char** argv) {
    const int ranks = std::stoi(bench::takeFlag(argc, argv, "ranks", "8"));
    const int64_t events = std::stoll(bench::takeFlag(argc, argv, "events", "1000000"));
    const int runs = std::stoi(bench::takeFlag(argc, argv, "runs", "5"));
    const std::string dir = bench::takeFlag(argc, argv, "dir",
                                            "/tmp/stallscope-bench-run-" + std::to_string(ranks) +
                                                "x" + std::to_string(events));
    fs::create_directories(dir);
    for (int rank = 0; rank < ranks; ++rank) {
        const std::string path = dir + "/rank" + std::to_string(rank) + ".stallscope";
        if (!fs::exists(path)) {
            std::fprintf(stderr, "generating %s ...\n", path.c_str());
            if (!writeRank(path, rank, ranks, events))
                return 1;
        }
    }
    const std::string cache = dir + ".cache";
    setenv("STALLSCOPE_IMPORT_CACHE", cache.c_str(), 1);

    std::vector<double> cold, warm;
    int64_t loadedEvents = 0;
    std::string merged;
    for (int run = 0; run < runs; ++run) {
        for (const bool first : {true, false}) {
            if (first)
                fs::remove_all(cache);
            const auto start = std::chrono::steady_clock::now();
            model::LoadResult result = model::RunMerger::load({dir});
            const double seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (!result.ok()) {
                std::fprintf(stderr, "%s\n", result.error.c_str());
                return 1;
            }
            loadedEvents = result.session->counts.total();
            merged = result.session->path;
            (first ? cold : warm).push_back(seconds);
        }
    }
    std::printf("ranks %d, events per rank %lld, merged events %lld\n", ranks,
                static_cast<long long>(events), static_cast<long long>(loadedEvents));
    std::printf("cold open (check + merge + load): median %.3f s (min %.3f, max %.3f) of %d\n",
                median(cold), *std::min_element(cold.begin(), cold.end()),
                *std::max_element(cold.begin(), cold.end()), runs);
    std::printf("warm open (cached merge loaded):  median %.3f s (min %.3f, max %.3f) of %d\n",
                median(warm), *std::min_element(warm.begin(), warm.end()),
                *std::max_element(warm.begin(), warm.end()), runs);
    std::printf("merged session: %s\n", merged.c_str());
    return 0;
}
