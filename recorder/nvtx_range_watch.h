// NvtxRangeWatch: tells from CUPTI's NVTX callbacks (CUPTI_CB_DOMAIN_NVTX) when a range with one
// message begins and ends, for --capture-range nvtx:NAME. Push/pop ranges are followed per thread
// and domain (a pop carries no message: each thread keeps which of its pushes matched);
// start/end ranges by the id nvtxRangeStart* returned (any thread may end one). The message may
// be ASCII, wide (ASCII names only) or a string registered with nvtxDomainRegisterStringA. Any
// domain's ranges count.
//
// Cost on the program's NVTX calls: a string comparison and a thread-local push or pop; a lock
// only for start/end ranges and registered strings of that name, and for their ends.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace stallscope::recorder {

class NvtxRangeWatch {
public:
    enum class Change : uint8_t { None, Began, Ended };

    explicit NvtxRangeWatch(std::string name = {});
    NvtxRangeWatch(const NvtxRangeWatch&) = delete;
    NvtxRangeWatch& operator=(const NvtxRangeWatch&) = delete;

    const std::string& name() const { return m_name; }
    // A callback of CUPTI_CB_DOMAIN_NVTX: `cbid`, and its CUpti_NvtxData.
    Change onCallback(uint32_t cbid, const void* nvtxData);
    // The NVTX callback ids to enable: the range calls and string registration.
    static std::span<const uint32_t> callbackIds();

    // The pushes one thread follows with their domain; deeper ones are counted only (a range of
    // the name pushed that deep is not seen).
    static constexpr int kTrackedDepth = 64;

private:
    bool matches(const char* ascii) const;
    bool matchesWide(const wchar_t* wide) const;
    // The message of an nvtxEventAttributes_t (the Ex calls).
    bool matchesAttributes(const void* attributes) const;
    Change push(const void* domain, bool matching);
    Change pop(const void* domain);
    Change startRange(const void* returnValue, bool matching);
    Change endRange(uint64_t id);

    const std::string m_name;
    const uint64_t m_instance;  // tells this watch's per-thread state from an earlier watch's
    mutable std::mutex m_mutex; // guards the two vectors below
    std::vector<uint64_t> m_openStartRanges;      // ids of start/end ranges of the name
    std::vector<const void*> m_registeredStrings; // handles registered for the name
    std::atomic<bool> m_anyStartRanges{false};
    std::atomic<bool> m_anyRegistered{false};
};

} // namespace stallscope::recorder
