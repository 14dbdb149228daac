#include "recorder/launch_environment.h"

#include <unistd.h>

#include <cstring>
#include <iterator>
#include <string_view>

extern char** environ;

namespace stallscope::recorder {

namespace {

// Each fact's variables, first present wins (docs/recorder.md, "Multi-process runs").
constexpr const char* kRankNames[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                      "SLURM_PROCID"};
constexpr const char* kLocalRankNames[] = {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK",
                                           "MPI_LOCALRANKID", "SLURM_LOCALID"};
constexpr const char* kWorldSizeNames[] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                           "SLURM_NTASKS"};

// The value of `name` among the entries, null when unset or empty.
const char* lookup(const char* const* entries, std::string_view name) {
    for (const char* const* entry = entries; entry && *entry; ++entry) {
        const std::string_view text(*entry);
        if (text.size() > name.size() && text[name.size()] == '=' &&
            text.compare(0, name.size(), name) == 0)
            return *(*entry + name.size() + 1) ? *entry + name.size() + 1 : nullptr;
    }
    return nullptr;
}

bool anyWithPrefix(const char* const* entries, std::string_view prefix) {
    for (const char* const* entry = entries; entry && *entry; ++entry)
        if (std::string_view(*entry).compare(0, prefix.size(), prefix) == 0)
            return true;
    return false;
}

// Plain decimal digits only (no sign, space or suffix), below `limit`; a launcher writes nothing
// else, so anything else is a user's variable of the same name.
std::optional<int64_t> parseDecimal(const char* text, int64_t limit) {
    if (!text || !*text || strlen(text) > 12)
        return std::nullopt;
    int64_t value = 0;
    for (const char* c = text; *c; ++c) {
        if (*c < '0' || *c > '9')
            return std::nullopt;
        value = value * 10 + (*c - '0');
    }
    return value < limit ? std::optional<int64_t>(value) : std::nullopt;
}

// The first variable of `names` that is set and parses; the ones set but not parsing are named in
// *diagnostics.
template <size_t N>
std::optional<int64_t> firstValue(const char* const* entries, const char* const (&names)[N],
                                  int64_t limit, std::vector<std::string>* diagnostics) {
    for (const char* name : names) {
        const char* text = lookup(entries, name);
        if (!text || !*text)
            continue;
        if (std::optional<int64_t> value = parseDecimal(text, limit))
            return value;
        diagnostics->push_back(std::string(name) + "='" + std::string(text).substr(0, 40) +
                               "' ignored: not a decimal number below " + std::to_string(limit));
    }
    return std::nullopt;
}

std::string launcherOf(const char* const* entries) {
    // DeepSpeed's launcher (deepspeed/launcher/launch.py) adds these to torch's RANK/WORLD_SIZE.
    if (lookup(entries, "CROSS_RANK") || lookup(entries, "CROSS_SIZE"))
        return "deepspeed";
    if (anyWithPrefix(entries, "TORCHELASTIC_"))
        return "torchrun";
    if (anyWithPrefix(entries, "OMPI_COMM_WORLD_") || lookup(entries, "PMI_RANK") ||
        lookup(entries, "PMIX_RANK"))
        return "mpirun";
    if (lookup(entries, "SLURM_PROCID"))
        return "srun";
    return "";
}

} // namespace

LaunchEnvironment LaunchEnvironment::parse(const char* const* entries) {
    LaunchEnvironment launch;
    launch.rank = firstValue(entries, kRankNames, kMaxRanks, &launch.diagnostics);
    if (!launch.rank)
        return launch; // a process without a rank is not part of a run: nothing else matters
    launch.localRank = firstValue(entries, kLocalRankNames, kMaxRanks, &launch.diagnostics);
    launch.worldSize = firstValue(entries, kWorldSizeNames, kMaxRanks + 1, &launch.diagnostics);
    if (launch.worldSize && *launch.worldSize == 0) {
        launch.diagnostics.push_back("world size 0 ignored");
        launch.worldSize.reset();
    }
    if (launch.worldSize && *launch.rank >= *launch.worldSize) {
        // One of the two is wrong and nothing says which: no rank rather than a wrong one.
        launch.diagnostics.push_back("rank " + std::to_string(*launch.rank) +
                                     " ignored: not below the world size " +
                                     std::to_string(*launch.worldSize));
        launch.rank.reset();
        launch.localRank.reset();
        launch.worldSize.reset();
        return launch;
    }
    launch.launcher = launcherOf(entries);
    return launch;
}

LaunchEnvironment LaunchEnvironment::current() {
    return parse(environ);
}

std::string expandOutputPattern(const std::string& pattern, const OutputNameValues& values,
                                bool* hadUnique) {
    std::string path;
    bool unique = false;
    for (size_t i = 0; i < pattern.size(); ++i) {
        const char next = i + 1 < pattern.size() ? pattern[i + 1] : '\0';
        if (pattern[i] != '%' || (next != 'p' && next != 'r' && next != 'h' && next != '%')) {
            path += pattern[i];
            continue;
        }
        ++i;
        if (next == 'p') {
            path += std::to_string(values.pid);
            unique = true;
        } else if (next == 'r') {
            path += std::to_string(values.rank ? *values.rank : values.pid);
        } else if (next == 'h') {
            path += values.host;
        } else {
            path += '%';
        }
    }
    if (hadUnique)
        *hadUnique = unique;
    return path;
}

std::string escapeOutputPattern(const std::string& path) {
    std::string escaped;
    for (char c : path)
        escaped += c == '%' ? std::string("%%") : std::string(1, c);
    return escaped;
}

std::string currentHostName() {
    char buffer[256] = {};
    if (gethostname(buffer, sizeof(buffer) - 1) != 0)
        return {};
    return buffer;
}

} // namespace stallscope::recorder
