// KinetoTraceGenerator: writes a synthetic torch.profiler (Kineto) trace of a chosen size, shaped
// like the real ones in tests/interop/data (same categories in similar proportions: cpu_op,
// python_function stacks, cudaLaunchKernel + kernel + ac2g flows, one .item() per step as
// cudaMemcpyAsync + DtoH copy + cudaStreamSynchronize, ProfilerStep annotations). Streams to
// disk, `.gz` compressed when the name says so.
#pragma once

#include <cstdint>
#include <string>

namespace stallscope::bench {

struct KinetoTraceStats {
    int64_t bytes = 0; // uncompressed JSON
    int64_t events = 0;
    int64_t steps = 0;
    int64_t syncs = 0;
    int64_t kernels = 0;
};

class KinetoTraceGenerator {
public:
    // Writes steps until the JSON reaches `targetBytes`. False with *error on I/O failure.
    static bool write(const std::string& path, int64_t targetBytes, KinetoTraceStats* stats,
                      std::string* error);
};

} // namespace stallscope::bench
