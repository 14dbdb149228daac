// Shared between the symbolization test program and its dlopen'ed library: the return addresses
// captured at known call sites and the source lines those call sites are on (__LINE__).
#pragma once

struct SymtestSites {
    void* plainPc = nullptr; // return address inside symtest::plainSite (no inlining)
    int plainLine = 0;
    void* inlinePc = nullptr; // return address inside inlinedHelper, inlined into outerCaller
    int inlineLine = 0;       // the call in inlinedHelper
    int outerLine = 0;        // the call of inlinedHelper in outerCaller
    void* entryPc = nullptr;  // return address inside the exported entry point symtestLibRun
    int entryLine = 0;
};

extern "C" void symtestLibRun(SymtestSites* sites);
using SymtestLibRunFn = void (*)(SymtestSites*);
