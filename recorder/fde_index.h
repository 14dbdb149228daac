// FdeIndex: finds the FDE of a PC in two dependent memory reads instead of libgcc's binary search.
//
// A stack capture that meets a new PC (StackUnwinder caches a rule per PC) must find the PC's FDE.
// libgcc's _Unwind_Find_FDE binary-searches the module's .eh_frame_hdr table: ~20 dependent loads
// on libtorch's tables, each a cache miss the first time (~0.5 µs a PC cold; the first sync of a
// PyTorch program meets dozens of new PCs). A background thread indexes each loaded module's table
// by 4 KiB page of code (the table's first entry at or after each page), so that a lookup reads
// the page's slot and searches the few entries of that page.
//
// Safety: the capture thread learns the PC's module from glibc's lock-free _dl_find_object and
// uses an index only when it was built for that very module (same link map, map range, header and
// entry count); every read stays inside the live module's own table. Anything else (no index yet,
// glibc < 2.35, an uncommon table encoding) falls back to _Unwind_Find_FDE. Indexes are published
// into an insert-only table and never freed, so a reader never sees one disappear.
#pragma once

#include "recorder/module_table.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

struct dl_phdr_info;

namespace stallscope::recorder {

class FdeIndex {
public:
    // The FDE whose table entry is the last at or below `pc`, or nullptr when this index cannot
    // tell (the caller then asks libgcc). The FDE's own range still has to be checked. Lock-free,
    // allocation-free: called on the target's threads.
    static const uint8_t* find(uintptr_t pc);

    // The table of one module's .eh_frame_hdr (entries sorted by initial location, each field
    // relative to the header), or count 0 when the module has none in the encoding GNU ld and
    // lld write. Reads the module's program headers and header only.
    struct Table {
        uintptr_t header = 0;
        const int32_t* entries = nullptr; // pairs: initial location, FDE
        uint32_t count = 0;
    };
    static Table tableOf(const dl_phdr_info& module);

    // Indexes modules loaded since the last call (the first call: all). Returns how many.
    int indexNewModules();
    // Modules indexed in this process so far, and the indexes' memory (diagnostics, tests).
    static uint64_t indexedModules();
    static uint64_t indexBytes();

    // A thread that indexes at once, then whenever modules were loaded (checked every 250 ms).
    void start();
    void stop();
    void forgetAfterFork();
    // "N modules, M KiB" (or "off"), for the session's meta.
    std::string describe() const;

private:
    void run();

    ModuleTable::LoadCounters m_counters; // at the last pass (all ones: none yet)
    std::atomic<bool> m_started{false};
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

} // namespace stallscope::recorder
