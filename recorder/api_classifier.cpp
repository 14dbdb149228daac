#include "recorder/api_classifier.h"

#include <cupti.h>

namespace stallscope::recorder {

namespace {

bool startsWith(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}
bool contains(std::string_view s, std::string_view part) {
    return s.find(part) != std::string_view::npos;
}

} // namespace

ApiClass ApiClassifier::classify(std::string_view name) {
    // Runtime names start with "cuda", driver names with "cu" + uppercase.
    if (startsWith(name, "cudaStreamSynchronize") || startsWith(name, "cuStreamSynchronize"))
        return ApiClass::StreamSync;
    if (startsWith(name, "cudaDeviceSynchronize") || startsWith(name, "cudaThreadSynchronize") ||
        startsWith(name, "cuCtxSynchronize"))
        return ApiClass::DeviceSync;
    if (startsWith(name, "cudaEventSynchronize") || startsWith(name, "cuEventSynchronize"))
        return ApiClass::EventSync;
    if (startsWith(name, "cudaStreamWaitEvent") || startsWith(name, "cuStreamWaitEvent"))
        return ApiClass::StreamWaitEvent;
    if (startsWith(name, "cudaMemcpy") || startsWith(name, "cuMemcpy")) {
        if (!contains(name, "Async"))
            return ApiClass::CopySync;
        // A host->device copy reads host memory: from pageable memory it blocks (CopyAsync).
        for (std::string_view deviceOnly : {"DtoD", "Peer", "DtoA", "AtoA", "ToSymbol"})
            if (contains(name, deviceOnly))
                return ApiClass::CopyAsyncDevice;
        return ApiClass::CopyAsync;
    }
    if (startsWith(name, "cudaMemset") || startsWith(name, "cuMemset"))
        return ApiClass::Memset;
    if (startsWith(name, "cudaLaunch") || startsWith(name, "cuLaunch") ||
        startsWith(name, "cudaGraphLaunch") || startsWith(name, "cuGraphLaunch"))
        return contains(name, "HostFunc") ? ApiClass::None : ApiClass::Launch;
    // Freeing memory the device may still use waits for all of its work (the reason PyTorch
    // caches allocations); the stream-ordered frees do not.
    if (startsWith(name, "cudaFree") || startsWith(name, "cuMemFree"))
        return contains(name, "Async") ? ApiClass::Alloc : ApiClass::Free;
    if (startsWith(name, "cudaMalloc") || startsWith(name, "cuMemAlloc") ||
        startsWith(name, "cudaHostAlloc") || startsWith(name, "cuMemHostAlloc"))
        return ApiClass::Alloc;
    if (startsWith(name, "cudaEventRecord") || startsWith(name, "cuEventRecord"))
        return ApiClass::EventRecord;
    return ApiClass::None;
}

void ApiClassifier::set(int domain, uint32_t cbid, ApiClass c) {
    std::vector<ApiClass>& table = domain == kDriverDomain ? m_driver : m_runtime;
    if (cbid >= table.size())
        table.resize(cbid + 1, ApiClass::None);
    table[cbid] = c;
}

bool ApiClassifier::build() {
    bool any = false;
    for (int domain : {kRuntimeDomain, kDriverDomain}) {
        uint32_t size = domain == kRuntimeDomain ? uint32_t(CUPTI_RUNTIME_TRACE_CBID_SIZE)
                                                 : uint32_t(CUPTI_DRIVER_TRACE_CBID_SIZE);
        for (uint32_t cbid = 1; cbid < size; ++cbid) {
            const char* name = nullptr;
            if (cuptiGetCallbackName(CUpti_CallbackDomain(domain), cbid, &name) != CUPTI_SUCCESS ||
                !name)
                continue;
            any = true;
            ApiClass c = classify(name);
            if (c != ApiClass::None)
                set(domain, cbid, c);
        }
    }
    return any;
}

std::vector<uint32_t> ApiClassifier::interesting(int domain) const {
    const std::vector<ApiClass>& table = domain == kDriverDomain ? m_driver : m_runtime;
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < table.size(); ++i)
        if (table[i] != ApiClass::None)
            out.push_back(i);
    return out;
}

} // namespace stallscope::recorder
