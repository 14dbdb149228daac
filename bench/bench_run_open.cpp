// Opening a multi-GPU run (issue 16): a folder of R rank sessions of N events each opened as one
// session. Goal: 8 ranks × 1 M events open in ≤ 3 s on the 2-core reference machine.
//   new       RunMerger::load: the files loaded in parallel and merged in memory; nothing is
//             cached, so every open does this work
//   old-cold  the former path (tests/support/sql_run_merge.h): every input checked by SQL, its rows
//             copied into one merged session file, that file loaded
//   old-warm  the former path's second open: the merged file loaded again
// Each measurement is a fresh process (no allocator or SQLite state carried over); rounds
// alternate the variants' order. With --drop-caches (root) the kernel's page cache is dropped
// before each measurement, so the files come from the disk.
//
//   stallscope-bench-run-open [--ranks=8] [--events=1000000] [--runs=5] [--dir=PATH]
//                             [--variants=new,old-cold,old-warm] [--drop-caches]
#include "bench/bench_support.h"
#include "format/sqlite_database.h"
#include "model/interop/run_merge.h"
#include "model/testing/synthetic_session.h"
#include "tests/support/sql_run_merge.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

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

// CPU time this process used so far (user + system, all threads), in seconds.
double cpuSeconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
           (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// One measurement in this (fresh) process: prints "seconds cpu-seconds events".
int measure(const std::string& variant, const std::string& dir) {
    const std::string merged = dir + ".merged.stallscope";
    if (variant == "old-cold")
        fs::remove(merged);
    const auto start = std::chrono::steady_clock::now();
    const double cpuStart = cpuSeconds();
    const model::LoadResult result = variant == "new" ? model::RunMerger::load({dir})
                                     : variant == "old-cold"
                                         ? testing::loadThroughMergedFile({dir}, merged)
                                         : model::SessionLoader::load(merged);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!result.ok()) {
        std::fprintf(stderr, "%s\n", result.error.c_str());
        return 1;
    }
    std::printf("%.4f %.4f %lld\n", seconds, cpuSeconds() - cpuStart,
                static_cast<long long>(result.session->counts.total()));
    return 0;
}

// Runs this program with `--measure=variant`; its wall and CPU seconds and events, or false.
bool measureInChild(const std::string& self, const std::string& variant, const std::string& dir,
                    double* seconds, double* cpu, long long* events) {
    const std::string out = dir + ".measure.txt";
    const std::string command =
        "'" + self + "' --measure=" + variant + " --dir='" + dir + "' > '" + out + "'";
    if (std::system(command.c_str()) != 0)
        return false;
    std::FILE* f = std::fopen(out.c_str(), "r");
    const bool read = f && std::fscanf(f, "%lf %lf %lld", seconds, cpu, events) == 3;
    if (f)
        std::fclose(f);
    return read;
}

void dropPageCache() {
    sync();
    if (std::FILE* f = std::fopen("/proc/sys/vm/drop_caches", "w")) {
        std::fputs("3", f);
        std::fclose(f);
    } else {
        std::fprintf(stderr, "cannot drop the page cache (not root?)\n");
    }
}

} // namespace

int main(int argc, char** argv) {
    const int ranks = std::stoi(bench::takeFlag(argc, argv, "ranks", "8"));
    const int64_t events = std::stoll(bench::takeFlag(argc, argv, "events", "1000000"));
    const int runs = std::stoi(bench::takeFlag(argc, argv, "runs", "5"));
    const std::string dir = bench::takeFlag(argc, argv, "dir",
                                            "/tmp/stallscope-bench-run-" + std::to_string(ranks) +
                                                "x" + std::to_string(events));
    if (const std::string variant = bench::takeFlag(argc, argv, "measure", ""); !variant.empty())
        return measure(variant, dir);
    std::vector<std::string> variants;
    std::stringstream list(bench::takeFlag(argc, argv, "variants", "new,old-cold,old-warm"));
    for (std::string variant; std::getline(list, variant, ',');)
        variants.push_back(variant);
    const bool dropCaches =
        std::find(argv, argv + argc, std::string("--drop-caches")) != argv + argc;

    fs::create_directories(dir);
    for (int rank = 0; rank < ranks; ++rank) {
        const std::string path = dir + "/rank" + std::to_string(rank) + ".stallscope";
        if (!fs::exists(path)) {
            std::fprintf(stderr, "generating %s ...\n", path.c_str());
            if (!writeRank(path, rank, ranks, events))
                return 1;
        }
    }
    const std::string self = fs::read_symlink("/proc/self/exe").string();
    std::map<std::string, std::vector<double>> seconds, cpuSeconds;
    long long loadedEvents = 0;
    for (int run = 0; run < runs; ++run) {
        // old-warm needs old-cold's file: it keeps its place after old-cold.
        std::vector<std::string> order = variants;
        if (run % 2)
            std::reverse(order.begin(), order.end());
        if (const auto cold = std::find(order.begin(), order.end(), "old-cold"),
            warm = std::find(order.begin(), order.end(), "old-warm");
            cold != order.end() && warm != order.end() && warm < cold)
            std::iter_swap(cold, warm);
        for (const std::string& variant : order) {
            if (dropCaches)
                dropPageCache();
            double s = 0, cpu = 0;
            if (!measureInChild(self, variant, dir, &s, &cpu, &loadedEvents)) {
                std::fprintf(stderr, "%s failed\n", variant.c_str());
                return 1;
            }
            std::fprintf(stderr, "run %d %-8s %.3f s (CPU %.3f s)\n", run + 1, variant.c_str(), s,
                         cpu);
            seconds[variant].push_back(s);
            cpuSeconds[variant].push_back(cpu);
        }
    }
    std::printf("ranks %d, events per rank %lld, opened events %lld, page cache %s\n", ranks,
                static_cast<long long>(events), loadedEvents,
                dropCaches ? "dropped before each open" : "kept");
    for (const std::string& variant : variants) {
        const std::vector<double>& v = seconds[variant];
        std::printf("%-8s median %.3f s (min %.3f, max %.3f) of %d; CPU median %.3f s\n",
                    variant.c_str(), median(v), *std::min_element(v.begin(), v.end()),
                    *std::max_element(v.begin(), v.end()), runs, median(cpuSeconds[variant]));
    }
    return 0;
}
