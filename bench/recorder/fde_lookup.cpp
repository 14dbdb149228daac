// The unwinder's cost per new PC, with libgcc's FDE lookup and with the FDE index
// (recorder/fde_index.h): a fresh process loads a large library (libLLVM-14 by default), then
// computes the unwind rule of PCs spread over its functions — cold (first touch of the tables,
// as at a program's first sync) and again (tables cached).
//   stallscope-bench-fde-lookup libgcc|index [LIBRARY] [PCS]
// Prints one line: mode, PCs, ns per PC cold and again. Run each mode in fresh processes,
// interleaved (bench/RESULTS.md); a process measures only one mode, as its first touch counts.
#include "recorder/cfi_rule.h"
#include "recorder/fde_index.h"

#include <dlfcn.h>
#include <link.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using stallscope::recorder::CfiRule;
using stallscope::recorder::cfiRuleAt;
using stallscope::recorder::FdeIndex;

namespace {

struct Sample {
    const char* library;
    size_t wanted;
    std::vector<uintptr_t> pcs;
};

int sample(dl_phdr_info* info, size_t, void* data) {
    auto* s = static_cast<Sample*>(data);
    if (!info->dlpi_name || !strstr(info->dlpi_name, s->library))
        return 0;
    FdeIndex::Table table = FdeIndex::tableOf(*info);
    const uint32_t step = uint32_t(std::max<size_t>(1, table.count / s->wanted));
    // Spread over the table in a scrambled order, so consecutive lookups share no cache lines.
    for (uint32_t k = 0; k < step && s->pcs.size() < s->wanted; ++k)
        for (uint32_t i = k * 7919 % step; i < table.count && s->pcs.size() < s->wanted; i += step)
            s->pcs.push_back(table.header + intptr_t(table.entries[2 * size_t(i)]) + 4);
    return 1;
}

double nsPerPc(const std::vector<uintptr_t>& pcs, int* valid) {
    const auto start = std::chrono::steady_clock::now();
    for (uintptr_t pc : pcs)
        *valid += cfiRuleAt(pc, false).valid;
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start)
               .count() /
           double(pcs.size());
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2 || (strcmp(argv[1], "libgcc") && strcmp(argv[1], "index"))) {
        fprintf(stderr, "usage: %s libgcc|index [LIBRARY] [PCS]\n", argv[0]);
        return 2;
    }
    const char* path = argc > 2 ? argv[2] : "libLLVM-14.so.1";
    // The module to sample, by the file name dl_iterate_phdr reports it under.
    const char* slash = strrchr(path, '/');
    Sample s{slash ? slash + 1 : path, argc > 3 ? size_t(atol(argv[3])) : 2000, {}};
    if (!dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    dl_iterate_phdr(sample, &s);
    if (s.pcs.empty()) {
        fprintf(stderr, "no FDE table in %s\n", path);
        return 1;
    }
    const bool indexed = strcmp(argv[1], "index") == 0;
    double buildMs = 0;
    if (indexed) { // as the recorder's thread does it, before the program's first sync
        const auto start = std::chrono::steady_clock::now();
        FdeIndex().indexNewModules();
        buildMs =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
    }
    int valid = 0;
    const double cold = nsPerPc(s.pcs, &valid);
    const double again = nsPerPc(s.pcs, &valid);
    printf("%s pcs=%zu cold_ns=%.0f again_ns=%.0f valid=%d index_build_ms=%.1f index_kib=%llu\n",
           argv[1], s.pcs.size(), cold, again, valid / 2, buildMs,
           (unsigned long long)(FdeIndex::indexBytes() / 1024));
    return 0;
}
