// stallscope-kineto-gen: writes a synthetic torch.profiler (Kineto) trace of a given size.
//   stallscope-kineto-gen OUT.json[.gz] SIZE_MB
#include "bench/kineto/kineto_trace_generator.h"

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s OUT.json[.gz] SIZE_MB\n", argv[0]);
        return 2;
    }
    const int64_t bytes = static_cast<int64_t>(std::atof(argv[2]) * 1024 * 1024);
    stallscope::bench::KinetoTraceStats stats;
    std::string error;
    if (!stallscope::bench::KinetoTraceGenerator::write(argv[1], bytes, &stats, &error)) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    std::printf("%s: %lld bytes of JSON, %lld events, %lld steps, %lld kernels, %lld syncs\n",
                argv[1], (long long)stats.bytes, (long long)stats.events, (long long)stats.steps,
                (long long)stats.kernels, (long long)stats.syncs);
    return 0;
}
