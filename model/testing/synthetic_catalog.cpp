#include "model/testing/synthetic_catalog.h"

#include <iterator>
#include <string_view>
#include <utility>

namespace stallscope::model::synthetic {

std::vector<PyFrame> pythonCallers(const SiteSpec& site) {
    const std::string_view function = site.function;
    if (function == "train_step")
        return {{"train.py", 69, "train"}, {"train.py", 77, "main"}, {"train.py", 83, "<module>"}};
    if (function == "train")
        return {{"train.py", 77, "main"}, {"train.py", 83, "<module>"}};
    if (function == "main")
        return {{"train.py", 83, "<module>"}};
    // data.py's loader loop runs in a threading.Thread.
    return {{"threading.py", 975, "run"},
            {"threading.py", 1038, "_bootstrap_inner"},
            {"threading.py", 995, "_bootstrap"}};
}

const char* apiNameText(int64_t cbid) {
    static constexpr std::pair<int64_t, const char*> names[] = {
        {kCbidMemcpy, "cudaMemcpy_v3020"},
        {kCbidMemcpyAsync, "cudaMemcpyAsync_v3020"},
        {kCbidMemsetAsync, "cudaMemsetAsync_v3020"},
        {kCbidStreamSynchronize, "cudaStreamSynchronize_v3020"},
        {kCbidEventRecord, "cudaEventRecord_v3020"},
        {kCbidEventSynchronize, "cudaEventSynchronize_v3020"},
        {kCbidStreamWaitEvent, "cudaStreamWaitEvent_v3020"},
        {kCbidDeviceSynchronize, "cudaDeviceSynchronize_v3020"},
        {kCbidLaunchKernel, "cudaLaunchKernel_v7000"},
    };
    for (const auto& [id, name] : names)
        if (id == cbid)
            return name;
    return "";
}

} // namespace stallscope::model::synthetic
