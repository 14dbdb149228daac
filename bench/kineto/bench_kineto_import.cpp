// stallscope-bench-kineto: Kineto import throughput and memory.
//   stallscope-bench-kineto TRACE.json[.gz]      imports an existing trace
//   stallscope-bench-kineto --generate=MB [--gz]  generates a synthetic one in $TMPDIR first
//   --sequential=1  reads the JSON on the converting thread (default: pipelined where >1 core)
// Imports twice (cold, then warm with VmHWM reset: see main) and prints for each: JSON MB,
// seconds, MB/s of JSON, peak RSS during the import (above the process's RSS before it), the
// loaded model's event memory, and their ratio.
#include "bench/bench_support.h"
#include "bench/kineto/kineto_trace_generator.h"
#include "model/interop/kineto_importer.h"
#include "model/session/session_loader.h"

#include <sys/resource.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

using namespace stallscope;

int main(int argc, char** argv) {
    const std::string generate = bench::takeFlag(argc, argv, "generate", "");
    const bool gz = bench::takeFlag(argc, argv, "gz", "0") != "0";
    const bool sequential = bench::takeFlag(argc, argv, "sequential", "0") != "0";
    const std::string tmp = std::filesystem::temp_directory_path().string();
    std::string trace = argc > 1 ? argv[1] : "";
    std::string error;
    if (!generate.empty()) {
        trace = tmp + "/stallscope-bench-kineto-" + generate + (gz ? "MB.json.gz" : "MB.json");
        bench::KinetoTraceStats stats;
        if (!bench::KinetoTraceGenerator::write(
                trace, static_cast<int64_t>(std::stod(generate) * 1048576.0), &stats, &error)) {
            std::fprintf(stderr, "%s\n", error.c_str());
            return 1;
        }
        std::printf("generated %s: %.1f MB JSON, %lld events, %lld kernels, %lld syncs\n",
                    trace.c_str(), stats.bytes / 1048576.0, (long long)stats.events,
                    (long long)stats.kernels, (long long)stats.syncs);
    }
    if (trace.empty()) {
        std::fprintf(stderr, "usage: %s TRACE | --generate=MB [--gz=1]\n", argv[0]);
        return 2;
    }
    const std::string session = tmp + "/stallscope-bench-kineto.stallscope";
    auto cpuSeconds = [] {
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
               (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    };
    // Twice: "cold", the process's first import, whose peak also holds the importer's and
    // SQLite's code as it is first paged in; then "warm", with the peak reset after the first:
    // what the import itself holds at its peak (the code is resident by then, as in the app).
    for (const char* run : {"cold", "warm"}) {
        const bool warm = std::strcmp(run, "warm") == 0;
        if (warm && !bench::resetPeakResident()) {
            std::printf("warm: the kernel refused to reset the peak resident size\n");
            break;
        }
        const int64_t rssBefore = bench::residentBytes();
        const double cpuBefore = cpuSeconds();
        model::KinetoImportOptions options;
        options.output.replaceExisting = true; // the bench's own scratch file
        options.pipelined = options.pipelined && !sequential;
        const model::KinetoImportResult result =
            model::KinetoImporter::convert(trace, session, options);
        if (!result.ok) {
            std::fprintf(stderr, "%s\n", result.error.c_str());
            return 1;
        }
        const int64_t importPeak = bench::peakResidentBytes();
        const double cpu = cpuSeconds() - cpuBefore; // robust to other jobs sharing the cores
        const double jsonMb = result.stats.jsonBytes / 1048576.0;
        std::printf(
            "%s import (%s): %.1f MB JSON (%.1f MB on disk), %lld events -> %lld rows, %lld "
            "syncs, %.2f s, %.1f MB/s of JSON (%.2f s CPU: %.1f MB per CPU second)\n",
            run, options.pipelined ? "pipelined" : "sequential", jsonMb,
            result.stats.fileBytes / 1048576.0, (long long)result.stats.events,
            (long long)result.stats.rows, (long long)result.stats.syncs, result.seconds,
            jsonMb / result.seconds, cpu, jsonMb / cpu);
        const model::LoadResult loaded = model::SessionLoader::load(session);
        if (!loaded.ok()) {
            std::fprintf(stderr, "%s\n", loaded.error.c_str());
            return 1;
        }
        const double modelMb = loaded.session->eventMemoryBytes() / 1048576.0;
        const double peakMb = (importPeak - rssBefore) / 1048576.0;
        std::printf("%s memory: RSS before import %.1f MB, import peak %.1f MB (+%.1f MB), model "
                    "events %.1f MB (%lld events), import peak / model = %.2f\n",
                    run, rssBefore / 1048576.0, importPeak / 1048576.0, peakMb, modelMb,
                    (long long)loaded.session->counts.total(), peakMb / modelMb);
    }
    std::error_code ec;
    std::filesystem::remove(session, ec);
    if (!generate.empty())
        std::filesystem::remove(trace, ec);
    return 0;
}
