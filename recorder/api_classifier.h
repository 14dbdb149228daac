// ApiClassifier: which CUDA runtime/driver entry points the recorder cares about, decided once from
// the API names (so new per-thread-stream or versioned variants are covered without a list of ids),
// then looked up by callback id in O(1) on the hot path.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace stallscope::recorder {

enum class ApiClass : uint8_t {
    None = 0,
    StreamSync, // cudaStreamSynchronize*, cuStreamSynchronize*
    DeviceSync, // cudaDeviceSynchronize, cudaThreadSynchronize, cuCtxSynchronize*
    EventSync,  // cudaEventSynchronize, cuEventSynchronize
    StreamWaitEvent,
    CopySync,        // cudaMemcpy (no Async): blocks the host
    CopyAsync,       // cudaMemcpyAsync and friends: blocks when the host side is pageable
    CopyAsyncDevice, // async copies that never touch host memory (DtoD, peer): no stack
    Memset,
    Launch,
    Alloc, // malloc family: may synchronize
    EventRecord,
    Free, // cudaFree, cuMemFree (not the stream-ordered *Async): waits for the whole device
};

class ApiClassifier {
public:
    static ApiClass classify(std::string_view name);
    static bool isSync(ApiClass c) {
        return c == ApiClass::StreamSync || c == ApiClass::DeviceSync || c == ApiClass::EventSync ||
               c == ApiClass::StreamWaitEvent || c == ApiClass::Free;
    }
    static bool isCopy(ApiClass c) { return c == ApiClass::CopySync || c == ApiClass::CopyAsync; }
    // Whether the callback captures a stack for this class.
    static bool wantsStack(ApiClass c) { return isSync(c) || isCopy(c); }

    // Fills the per-domain tables from CUPTI's callback names. Returns false if CUPTI gave none.
    bool build();
    void set(int domain, uint32_t cbid, ApiClass c);
    ApiClass lookup(int domain, uint32_t cbid) const {
        const std::vector<ApiClass>& table = domain == 1 ? m_driver : m_runtime;
        return cbid < table.size() ? table[cbid] : ApiClass::None;
    }
    // Callback ids of one domain with a class other than None (to enable exactly those).
    std::vector<uint32_t> interesting(int domain) const;

    // CUPTI domain numbers (CUPTI_CB_DOMAIN_DRIVER_API = 1, RUNTIME_API = 2).
    static constexpr int kDriverDomain = 1;
    static constexpr int kRuntimeDomain = 2;

private:
    std::vector<ApiClass> m_runtime;
    std::vector<ApiClass> m_driver;
};

} // namespace stallscope::recorder
