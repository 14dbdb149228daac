#include "model/interop/kineto_event.h"

#include <string_view>

namespace stallscope::model {

KinetoCategory kinetoCategory(const std::string& cat) {
    using C = KinetoCategory;
    const std::string_view c(cat);
    if (c.empty())
        return C::None;
    switch (c.front()) {
    case 'a':
        if (c == "ac2g")
            return C::Ac2g;
        break;
    case 'c':
        if (c == "cpu_op" || c == "cpu_instant_event")
            return C::Ignored;
        if (c == "cuda_runtime")
            return C::CudaRuntime;
        if (c == "cuda_driver")
            return C::CudaDriver;
        if (c == "cuda_sync")
            return C::CudaSync;
        break;
    case 'f':
        if (c == "fwdbwd")
            return C::Ignored;
        break;
    case 'g':
        if (c == "gpu_memcpy")
            return C::GpuMemcpy;
        if (c == "gpu_memset")
            return C::GpuMemset;
        if (c == "gpu_user_annotation")
            return C::GpuUserAnnotation;
        break;
    case 'k':
        if (c == "kernel")
            return C::Kernel;
        break;
    case 'o':
        if (c == "overhead")
            return C::Ignored;
        break;
    case 'p':
        if (c == "python_function")
            return C::PythonFunction;
        break;
    case 's':
        if (c == "sync")
            return C::StallscopeSync;
        if (c == "stallscope_process")
            return C::StallscopeProcess;
        break;
    case 'u':
        if (c == "user_annotation")
            return C::UserAnnotation;
        break;
    case 'T':
        if (c == "Trace")
            return C::Ignored;
        break;
    default:
        break;
    }
    return C::Unknown;
}

void KinetoEvent::reset() {
    ph = 0;
    category = KinetoCategory::None;
    cat.clear();
    name.clear();
    pidIsNumber = tidIsNumber = false;
    pid = tid = 0;
    hasTs = false;
    tsNs = durNs = 0;
    correlation = 0;
    device = -1;
    context = 0;
    stream = -1;
    bytes = 0;
    cbid = 0;
    registersPerThread = 0;
    sharedMemory = 0;
    waitEventId = -1;
    syncKind = 0;
    grid[0] = grid[1] = grid[2] = 1;
    block[0] = block[1] = block[2] = 1;
    argName.clear();
    argLabels.clear();
    stackSize = 0;
}

} // namespace stallscope::model
