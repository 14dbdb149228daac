// Small helpers shared by the benchmark programs: our own flags (read before Google Benchmark
// sees argv) and resident-memory figures from /proc.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

namespace stallscope::bench {

// Takes "--name=value" out of argv (so Google Benchmark does not reject it); fallback if absent.
inline std::string takeFlag(int& argc, char** argv, const char* name, const std::string& fallback) {
    const std::string prefix = std::string("--") + name + "=";
    for (int i = 1; i < argc; ++i) {
        if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) != 0)
            continue;
        std::string value = argv[i] + prefix.size();
        for (int j = i; j + 1 < argc; ++j)
            argv[j] = argv[j + 1];
        --argc;
        return value;
    }
    return fallback;
}

// Resident set size now (statm's second field), in bytes.
inline int64_t residentBytes() {
    long pages = 0, resident = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        std::fclose(f);
    }
    return static_cast<int64_t>(resident) * sysconf(_SC_PAGESIZE);
}

// Peak resident set size (VmHWM), in bytes.
// Resets the peak resident set size (VmHWM) to the current one (Linux 4.0+); false when the
// kernel refused.
inline bool resetPeakResident() {
    std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
    if (!f)
        return false;
    const bool written = std::fputs("5", f) >= 0;
    return std::fclose(f) == 0 && written;
}

inline int64_t peakResidentBytes() {
    int64_t kib = 0;
    if (std::FILE* f = std::fopen("/proc/self/status", "r")) {
        char line[256];
        while (std::fgets(line, sizeof line, f))
            if (std::strncmp(line, "VmHWM:", 6) == 0)
                kib = std::strtoll(line + 6, nullptr, 10);
        std::fclose(f);
    }
    return kib * 1024;
}

} // namespace stallscope::bench
