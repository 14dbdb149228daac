#include "model/interop/kineto_event.h"

#include "format/keyword_table.h"

namespace stallscope::model {

KinetoCategory kinetoCategory(const std::string& cat) {
    using C = KinetoCategory;
    static constexpr format::Keyword<C> kCategories[] = {
        {"kernel", C::Kernel},
        {"cuda_runtime", C::CudaRuntime},
        {"cuda_driver", C::CudaDriver},
        {"cuda_sync", C::CudaSync},
        {"ac2g", C::Ac2g},
        {"sync_wait", C::Ac2g}, // Stallscope's export: sync -> waited-for work, recomputed on load
        {"gpu_memcpy", C::GpuMemcpy},
        {"gpu_memset", C::GpuMemset},
        {"gpu_user_annotation", C::GpuUserAnnotation},
        {"user_annotation", C::UserAnnotation},
        {"python_function", C::PythonFunction},
        {"sync", C::StallscopeSync},
        {"stallscope_process", C::StallscopeProcess},
        // Categories Kineto writes that the importer knowingly skips.
        {"cpu_op", C::Ignored},
        {"cpu_instant_event", C::Ignored},
        {"fwdbwd", C::Ignored},
        {"overhead", C::Ignored},
        {"Trace", C::Ignored},
    };
    // PyTorch 1.8-1.10 (and TensorBoard's plugin samples) wrote capitalized names of their own:
    // Kernel, Runtime, Memcpy, Memset, Operator, Python, Memory. Looked up lowercased, only when
    // the exact lookup fails, so current traces pay nothing.
    static constexpr format::Keyword<C> kLegacyCategories[] = {
        {"kernel", C::Kernel},    {"runtime", C::CudaRuntime}, {"memcpy", C::GpuMemcpy},
        {"memset", C::GpuMemset}, {"operator", C::Ignored},    {"python", C::Ignored},
        {"memory", C::Ignored},   {"trace", C::Ignored},       {"cuda_runtime", C::CudaRuntime},
        {"cpu_op", C::Ignored},
    };
    if (cat.empty())
        return C::None;
    const C exact = format::lookupKeyword<kCategories>(cat, C::Unknown);
    if (exact != C::Unknown || cat.size() > 16)
        return exact;
    std::string lower = cat;
    for (char& c : lower)
        c = c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
    return format::lookupKeyword<kLegacyCategories>(lower, C::Unknown);
}

void KinetoEvent::reset() {
    static const KinetoEventValues kEmpty; // copied: cheaper than building one each time
    static_cast<KinetoEventValues&>(*this) = kEmpty;
    cat.clear();
    name.clear();
    argName.clear();
    argLabels.clear();
    stackSize = 0;
}

} // namespace stallscope::model
