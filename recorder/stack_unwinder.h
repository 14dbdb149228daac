// StackUnwinder: captures the calling thread's return addresses fast enough to run at every sync.
//
// glibc backtrace() and _Unwind_Backtrace re-parse DWARF CFI for every frame of every call (4-150
// us per stack in PyTorch, see shared/notes/gpu-facts.md). Frame pointers are no alternative: most
// libraries omit them. So this walks .eh_frame once per distinct PC (cfi_rule.h), reduces the CFI
// row at that PC to three numbers (CFA = rsp|rbp + offset, where rbp and the return address are
// saved) and caches them in a per-thread table; later walks are a hash probe and two loads per
// frame. A walk first looks each PC up among the previous walk's frames, kept in order: a loop's
// captures repeat the same stacks, and reading those rules in sequence costs a few cache lines
// where the probes into the table, once the loop's work has swept the caches, miss one by one.
//
// Hot path rules: no allocation (the per-thread cache is allocated on a thread's first capture), no
// locks (libgcc's _Unwind_Find_FDE is only called on a cache miss), and every stack read is checked
// against the thread's stack bounds, so a bad CFI row ends the walk instead of faulting.
#pragma once

#include "recorder/cfi_rule.h"

#include <cstddef>
#include <cstdint>

namespace stallscope::recorder {

class StackUnwinder {
public:
    using Rule = CfiRule;

    // Writes up to `maxFrames` return addresses of the calling thread into `out`, innermost first,
    // starting with the caller of capture(). Returns the number written. Never faults, never
    // allocates after the thread's first call.
    static int capture(uintptr_t* out, int maxFrames);

    // Sets up the calling thread's cache and stack bounds now, so that its first capture does not
    // pay for them (the main thread's bounds come from /proc/self/maps: ~0.1–1 ms).
    static void prepareThread();

    // Frames whose rule the calling thread's captures took from its previous walk (diagnostics).
    static uint64_t previousWalkHits();

    // Rules the calling thread has computed so far (cache misses): a capture that computed none
    // walked only PCs it had seen before.
    static uint64_t cacheMisses();

    // Stack-hash used for interning: stable for equal PC sequences.
    static uint64_t hash(const uintptr_t* pcs, int count);
};

} // namespace stallscope::recorder
