// The dlopen'ed library of the symbolization test. Built with -g; a stripped copy is made at build
// time. Every function but the entry point is hidden, so the two copies loaded side by side never
// interpose on each other and the stripped copy still names them through its .symtab.
#include "tests/symbolize/symtest_sites.h"

#define SYMTEST_HIDDEN __attribute__((visibility("hidden")))

// Returns its own return address: the PC right after a call site we know the line of.
extern "C" SYMTEST_HIDDEN __attribute__((noinline)) void* symtestCapture() {
    void* pc = __builtin_return_address(0);
    asm volatile("" ::: "memory"); // keep the call a real call (no tail call, no IPA folding)
    return pc;
}

// Each call and its __LINE__ must stay on one line, hence no formatting here.
// clang-format off
namespace symtest {

SYMTEST_HIDDEN __attribute__((noinline)) void plainSite(SymtestSites* sites) {
    void* pc = symtestCapture(); sites->plainLine = __LINE__;
    sites->plainPc = pc;
    asm volatile("" ::: "memory");
}

// External linkage (not static) so GCC records its qualified linkage name in DWARF; a static
// function is named by its short name only.
inline __attribute__((always_inline)) void* inlinedHelper(SymtestSites* sites) {
    void* pc = symtestCapture(); sites->inlineLine = __LINE__;
    return pc;
}

SYMTEST_HIDDEN __attribute__((noinline)) void outerCaller(SymtestSites* sites) {
    void* pc = inlinedHelper(sites); sites->outerLine = __LINE__;
    sites->inlinePc = pc;
    asm volatile("" ::: "memory");
}

} // namespace symtest

extern "C" __attribute__((visibility("default"))) void symtestLibRun(SymtestSites* sites) {
    void* pc = symtestCapture(); sites->entryLine = __LINE__;
    sites->entryPc = pc;
    symtest::plainSite(sites);
    symtest::outerCaller(sites);
}
// clang-format on
