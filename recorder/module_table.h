// ModuleTable: the loaded ELF modules (path, load bias, address range, GNU build id), so that raw
// PCs captured in the target can be symbolized after the run, on another machine.
//
// Scanning uses dl_iterate_phdr. Whether a rescan is needed is decided by glibc's dlpi_adds /
// dlpi_subs counters, which change on every dlopen/dlclose: checking them costs one callback.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stallscope::recorder {

class ModuleTable {
public:
    // glibc's counts of dlopen'ed and dlclose'd modules (dl_phdr_info's dlpi_adds, dlpi_subs):
    // when both are unchanged, so is the module list.
    struct LoadCounters {
        unsigned long long adds = ~0ull;
        unsigned long long subs = ~0ull;
        bool operator==(const LoadCounters&) const = default;
    };
    static LoadCounters loadCounters();

    struct Module {
        std::string path;
        uintptr_t loadBias = 0;
        uintptr_t start = 0; // lowest PT_LOAD address (absolute)
        uintptr_t end = 0;   // one past the highest PT_LOAD address (absolute)
        std::string buildId; // hex, empty if the module has none
    };

    // Re-reads the module list if modules were loaded or unloaded since the last call (or on the
    // first call). Returns the modules that are new since the last scan.
    std::vector<Module> refresh();
    // True when dl_iterate_phdr's counters moved since the last refresh().
    bool changed() const;

    const std::vector<Module>& modules() const { return m_modules; }
    // Index into modules() of the module containing `pc`, or -1.
    int find(uintptr_t pc) const;

private:
    std::vector<Module> m_modules; // sorted by start
    LoadCounters m_counters;       // at the last refresh (all ones: none yet)
};

} // namespace stallscope::recorder
