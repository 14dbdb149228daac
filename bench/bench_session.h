// The synthetic session the load and timeline benchmarks share, generated on first use.
#pragma once

#include "bench/bench_support.h"
#include "model/testing/synthetic_session.h"

#include <cstdio>
#include <filesystem>
#include <string>

namespace stallscope::bench {

// The session of --events=N events (10M by default) at --session=PATH (by default
// /tmp/stallscope-bench-N.stallscope), generated first when the file does not exist. Empty, the
// error printed with `program`'s name, when generating fails.
inline std::string syntheticBenchSession(int& argc, char** argv, const char* program) {
    const int64_t targetEvents = std::stoll(takeFlag(argc, argv, "events", "10000000"));
    const std::string path =
        takeFlag(argc, argv, "session",
                 "/tmp/stallscope-bench-" + std::to_string(targetEvents) + ".stallscope");
    if (std::filesystem::exists(path))
        return path;
    model::SyntheticOptions options;
    options.seed = 1;
    options.targetEvents = targetEvents;
    std::string error;
    std::fprintf(stderr, "generating %s ...\n", path.c_str());
    if (!model::writeSyntheticSession(path, options, nullptr, &error)) {
        std::fprintf(stderr, "%s: %s\n", program, error.c_str());
        return {};
    }
    return path;
}

} // namespace stallscope::bench
