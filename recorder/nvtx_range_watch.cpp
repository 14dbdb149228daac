#include "recorder/nvtx_range_watch.h"

#include <cupti.h>

#include <algorithm>
#include <cstring>

namespace stallscope::recorder {

namespace {

// NVTX v3's parameter and attribute layouts (generated_nvtx_meta.h, nvtx3/nvToolsExt.h, CUDA 13),
// mirrored: including the NVTX headers would define NVTX's own injection symbols in the recorder.
// tests/recorder/test_capture_control.cpp passes the real structures.
struct MessageParams { // nvtxRangePushA, nvtxRangeStartA
    const char* message;
};
struct WideMessageParams { // nvtxRangePushW, nvtxRangeStartW
    const wchar_t* message;
};
struct AttributesParams { // nvtxRangePushEx, nvtxRangeStartEx
    const void* attributes;
};
struct DomainAttributesParams { // nvtxDomainRangePushEx, nvtxDomainRangeStartEx
    const void* domain;
    const void* attributes;
};
struct DomainParams { // nvtxDomainRangePop
    const void* domain;
};
struct EndParams { // nvtxRangeEnd
    uint64_t id;
};
struct DomainEndParams { // nvtxDomainRangeEnd
    const void* domain;
    uint64_t id;
};
struct RegisterStringParams { // nvtxDomainRegisterStringA
    const void* domain;
    const char* string;
};
struct EventAttributes { // nvtxEventAttributes_v2
    uint16_t version;
    uint16_t size;
    uint32_t category;
    int32_t colorType;
    uint32_t color;
    int32_t payloadType;
    int32_t reserved0;
    uint64_t payload;
    int32_t messageType;
    union {
        const char* ascii;
        const wchar_t* unicode;
        const void* registered;
    } message;
};
constexpr int32_t kMessageAscii = 1;
constexpr int32_t kMessageUnicode = 2;
constexpr int32_t kMessageRegistered = 3;

constexpr uint32_t kCallbackIds[] = {
    CUPTI_CBID_NVTX_nvtxRangePushA,           CUPTI_CBID_NVTX_nvtxRangePushW,
    CUPTI_CBID_NVTX_nvtxRangePushEx,          CUPTI_CBID_NVTX_nvtxRangePop,
    CUPTI_CBID_NVTX_nvtxRangeStartA,          CUPTI_CBID_NVTX_nvtxRangeStartW,
    CUPTI_CBID_NVTX_nvtxRangeStartEx,         CUPTI_CBID_NVTX_nvtxRangeEnd,
    CUPTI_CBID_NVTX_nvtxDomainRangePushEx,    CUPTI_CBID_NVTX_nvtxDomainRangePop,
    CUPTI_CBID_NVTX_nvtxDomainRangeStartEx,   CUPTI_CBID_NVTX_nvtxDomainRangeEnd,
    CUPTI_CBID_NVTX_nvtxDomainRegisterStringA};

// One thread's open pushes (trivially destructible: no thread-exit work in the program).
struct PushStack {
    uint64_t instance = 0;
    int depth = 0; // every open push, tracked or not
    const void* domain[NvtxRangeWatch::kTrackedDepth];
    bool matching[NvtxRangeWatch::kTrackedDepth];
};
thread_local PushStack t_pushes;

std::atomic<uint64_t> g_instances{0};

} // namespace

NvtxRangeWatch::NvtxRangeWatch(std::string name)
    : m_name(std::move(name)), m_instance(++g_instances) {}

std::span<const uint32_t> NvtxRangeWatch::callbackIds() {
    return kCallbackIds;
}

bool NvtxRangeWatch::matches(const char* ascii) const {
    return ascii && !m_name.empty() && m_name == ascii;
}

bool NvtxRangeWatch::matchesWide(const wchar_t* wide) const {
    if (!wide || m_name.empty())
        return false;
    size_t i = 0;
    for (; i < m_name.size(); ++i)
        if (wide[i] != wchar_t(static_cast<unsigned char>(m_name[i])) ||
            static_cast<unsigned char>(m_name[i]) > 0x7f)
            return false;
    return wide[i] == 0;
}

bool NvtxRangeWatch::matchesAttributes(const void* raw) const {
    const auto* attributes = static_cast<const EventAttributes*>(raw);
    if (!attributes || attributes->size < sizeof(EventAttributes))
        return false;
    switch (attributes->messageType) {
    case kMessageAscii:
        return matches(attributes->message.ascii);
    case kMessageUnicode:
        return matchesWide(attributes->message.unicode);
    case kMessageRegistered:
        if (!m_anyRegistered.load(std::memory_order_acquire))
            return false;
        {
            std::lock_guard lock(m_mutex);
            return std::find(m_registeredStrings.begin(), m_registeredStrings.end(),
                             attributes->message.registered) != m_registeredStrings.end();
        }
    default:
        return false;
    }
}

NvtxRangeWatch::Change NvtxRangeWatch::push(const void* domain, bool matching) {
    PushStack& stack = t_pushes;
    if (stack.instance != m_instance)
        stack = PushStack{m_instance, 0, {}, {}};
    if (stack.depth < kTrackedDepth) {
        stack.domain[stack.depth] = domain;
        stack.matching[stack.depth] = matching;
    } else {
        matching = false; // too deep to be followed
    }
    ++stack.depth;
    return matching ? Change::Began : Change::None;
}

NvtxRangeWatch::Change NvtxRangeWatch::pop(const void* domain) {
    PushStack& stack = t_pushes;
    if (stack.instance != m_instance || stack.depth == 0)
        return Change::None; // pushed before the watch began
    if (stack.depth > kTrackedDepth) {
        --stack.depth;
        return Change::None;
    }
    // A domain's pop ends that domain's innermost push.
    int i = stack.depth - 1;
    while (i >= 0 && stack.domain[i] != domain)
        --i;
    if (i < 0)
        return Change::None;
    const bool matching = stack.matching[i];
    for (int j = i; j + 1 < stack.depth; ++j) {
        stack.domain[j] = stack.domain[j + 1];
        stack.matching[j] = stack.matching[j + 1];
    }
    --stack.depth;
    return matching ? Change::Ended : Change::None;
}

NvtxRangeWatch::Change NvtxRangeWatch::startRange(const void* returnValue, bool matching) {
    if (!matching || !returnValue)
        return Change::None;
    uint64_t id = 0;
    memcpy(&id, returnValue, sizeof(id)); // nvtxRangeId_t
    std::lock_guard lock(m_mutex);
    m_openStartRanges.push_back(id);
    m_anyStartRanges.store(true, std::memory_order_release);
    return Change::Began;
}

NvtxRangeWatch::Change NvtxRangeWatch::endRange(uint64_t id) {
    if (!m_anyStartRanges.load(std::memory_order_acquire))
        return Change::None;
    std::lock_guard lock(m_mutex);
    const auto found = std::find(m_openStartRanges.begin(), m_openStartRanges.end(), id);
    if (found == m_openStartRanges.end())
        return Change::None;
    m_openStartRanges.erase(found);
    m_anyStartRanges.store(!m_openStartRanges.empty(), std::memory_order_release);
    return Change::Ended;
}

NvtxRangeWatch::Change NvtxRangeWatch::onCallback(uint32_t cbid, const void* raw) {
    const auto* data = static_cast<const CUpti_NvtxData*>(raw);
    if (!data || !data->functionParams)
        return Change::None;
    const void* params = data->functionParams;
    switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA:
        return push(nullptr, matches(static_cast<const MessageParams*>(params)->message));
    case CUPTI_CBID_NVTX_nvtxRangePushW:
        return push(nullptr, matchesWide(static_cast<const WideMessageParams*>(params)->message));
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
        return push(nullptr,
                    matchesAttributes(static_cast<const AttributesParams*>(params)->attributes));
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
        const auto* p = static_cast<const DomainAttributesParams*>(params);
        return push(p->domain, matchesAttributes(p->attributes));
    }
    case CUPTI_CBID_NVTX_nvtxRangePop:
        return pop(nullptr);
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
        return pop(static_cast<const DomainParams*>(params)->domain);
    case CUPTI_CBID_NVTX_nvtxRangeStartA:
        return startRange(data->functionReturnValue,
                          matches(static_cast<const MessageParams*>(params)->message));
    case CUPTI_CBID_NVTX_nvtxRangeStartW:
        return startRange(data->functionReturnValue,
                          matchesWide(static_cast<const WideMessageParams*>(params)->message));
    case CUPTI_CBID_NVTX_nvtxRangeStartEx:
        return startRange(
            data->functionReturnValue,
            matchesAttributes(static_cast<const AttributesParams*>(params)->attributes));
    case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx:
        return startRange(
            data->functionReturnValue,
            matchesAttributes(static_cast<const DomainAttributesParams*>(params)->attributes));
    case CUPTI_CBID_NVTX_nvtxRangeEnd:
        return endRange(static_cast<const EndParams*>(params)->id);
    case CUPTI_CBID_NVTX_nvtxDomainRangeEnd:
        return endRange(static_cast<const DomainEndParams*>(params)->id);
    case CUPTI_CBID_NVTX_nvtxDomainRegisterStringA:
        if (matches(static_cast<const RegisterStringParams*>(params)->string) &&
            data->functionReturnValue) {
            const void* handle = nullptr; // nvtxStringHandle_t
            memcpy(&handle, data->functionReturnValue, sizeof(handle));
            std::lock_guard lock(m_mutex);
            m_registeredStrings.push_back(handle);
            m_anyRegistered.store(true, std::memory_order_release);
        }
        return Change::None;
    default:
        return Change::None;
    }
}

} // namespace stallscope::recorder
