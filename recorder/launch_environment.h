// LaunchEnvironment: a process's place in a multi-process run, read from what its launcher put in
// its environment (torchrun, DeepSpeed, mpirun, srun), and the output-name patterns that use it
// (%p, %r, %h, %%). Qt-free and allocation-light: the recorder reads it once at start inside the
// user's process; stallscope-record uses the same patterns for -o.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stallscope::recorder {

struct LaunchEnvironment {
    // The loader's bound (model/session/description_reader.cpp): ranks in [0, 2^24).
    static constexpr int64_t kMaxRanks = int64_t(1) << 24;

    std::optional<int64_t> rank, localRank, worldSize;
    std::string launcher; // "torchrun", "deepspeed", "mpirun", "srun" or ""
    // Values that were set but ignored ("RANK='x1' is not a decimal number"), one a line.
    std::vector<std::string> diagnostics;

    // `environ`-style, null-terminated "NAME=value" entries (tests pass their own).
    static LaunchEnvironment parse(const char* const* entries);
    // This process's environment.
    static LaunchEnvironment current();
};

// The values an output pattern expands to.
struct OutputNameValues {
    int64_t pid = 0;
    std::optional<int64_t> rank; // %r: the rank, or the pid when none
    std::string host;            // %h
};

// Expands %p, %r, %h and %% in `pattern`; any other '%' stays as it is. *hadUnique (when given)
// says whether %p was present, the one pattern that makes every process's name its own.
std::string expandOutputPattern(const std::string& pattern, const OutputNameValues& values,
                                bool* hadUnique = nullptr);
// `path` with every '%' doubled, so that expandOutputPattern gives it back unchanged.
std::string escapeOutputPattern(const std::string& path);
// This machine's host name ("" when unknown).
std::string currentHostName();

} // namespace stallscope::recorder
