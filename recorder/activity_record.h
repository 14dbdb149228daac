// ActivityRecord / ActivityBatch: CUPTI activity records decoded into one flat, CUPTI-free shape,
// so the CUPTI buffer goes back to CUPTI at once and the writer thread never sees CUPTI structs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stallscope::recorder {

struct ActivityRecord {
    enum class Kind : uint8_t {
        Kernel = 1,
        Memcpy,
        Memset,
        Sync,
        Api,
        Device,
        Context,
        Marker,
        CudaEvent,
        ExternalCorrelation // an API call tagged by NcclCollectives (externalId)
    };
    static constexpr uint32_t kNoName = UINT32_MAX;
    static constexpr uint32_t kInvalid = UINT32_MAX;

    Kind kind = Kind::Kernel;
    uint8_t domain = 0;   // Api: 1 driver, 2 runtime
    uint8_t copyKind = 0; // Memcpy
    uint8_t srcKind = 0;  // Memcpy
    uint8_t dstKind = 0;  // Memcpy, Memset
    uint8_t isAsync = 0;
    uint8_t computeMajor = 0, computeMinor = 0; // Device
    uint32_t syncType = 0;                      // Sync: CUpti_ActivitySynchronizationType
    uint32_t markerFlags = 0;
    uint32_t deviceId = 0;
    uint32_t contextId = 0;
    uint32_t streamId = 0; // kInvalid when the record names no stream
    uint32_t correlationId = 0;
    uint32_t cbid = 0;
    uint32_t eventId = kInvalid; // Sync, CudaEvent
    uint32_t markerId = 0;
    uint32_t returnValue = 0;
    int32_t tid = 0;
    int64_t startNs = 0; // Marker: timestamp; Device: 0
    int64_t endNs = 0;
    uint64_t bytes = 0;      // Memcpy/Memset; Device: global memory
    uint64_t externalId = 0; // ExternalCorrelation
    uint32_t value = 0;      // Memset value; Device: SM count
    int32_t grid[3] = {0, 0, 0};
    int32_t block[3] = {0, 0, 0};
    int32_t registers = 0;
    int32_t staticShared = 0;
    int32_t dynamicShared = 0;
    uint32_t nameOffset = kNoName; // Kernel, Device, Marker: into ActivityBatch::arena
    uint32_t nameLength = 0;
    uint32_t domainOffset = kNoName; // Marker domain name
    uint32_t domainLength = 0;
    uint8_t uuid[16] = {};
};

struct ActivityBatch {
    std::vector<ActivityRecord> records;
    std::string arena; // names, copied: CUPTI's name pointers are not ours to keep
    uint64_t droppedRecords = 0;
    uint32_t unknownRecords = 0;

    std::string_view text(uint32_t offset, uint32_t length) const {
        // Never a null view: SQLite would bind a null data pointer as NULL, not as "".
        return offset == ActivityRecord::kNoName ? std::string_view("")
                                                 : std::string_view(arena).substr(offset, length);
    }
};

} // namespace stallscope::recorder
