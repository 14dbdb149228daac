#include "recorder/nccl_collectives.h"

#include <cupti.h>
#include <dlfcn.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

namespace stallscope::recorder {

namespace {

constexpr CUpti_ExternalCorrelationKind kKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2;

// The calls a thread made since its last launch (a group launches several as one kernel).
struct PendingCalls {
    PendingCalls() { row.calls = 0; }
    format::CollectiveCallRow row;
    bool bytesKnown = true;
    int64_t bytes = 0;
    bool mixedTypes = false;
};
thread_local PendingCalls t_pending;

// Launches waiting for the writer, by id modulo the ring's size: bounded, so that a session whose
// EXTERNAL_CORRELATION records never come (API records off) costs no more than the ring. The
// writer takes a launch within a flush interval; NCCL launches far fewer than this per interval.
constexpr size_t kRingSlots = 16384;
struct Slot {
    uint64_t id = 0; // 0: empty
    format::CollectiveCallRow row;
};
std::mutex g_mutex;
std::vector<Slot> g_ring;
std::atomic<uint64_t> g_nextId{0};

} // namespace

int NcclCollectives::correlationKind() {
    return int(kKind);
}

int NcclCollectives::elementBytes(std::string_view datatype) {
    // NCCL's ncclDatatypeToString names (src/collectives.cc); ncclUint8 has none there.
    struct Size {
        std::string_view name;
        int bytes;
    };
    static constexpr Size kSizes[] = {
        {"ncclInt8", 1},    {"ncclUint8", 1},    {"ncclFloat8e4m3", 1}, {"ncclFloat8e5m2", 1},
        {"ncclFloat16", 2}, {"ncclBfloat16", 2}, {"ncclInt32", 4},      {"ncclUint32", 4},
        {"ncclFloat32", 4}, {"ncclInt64", 8},    {"ncclUint64", 8},     {"ncclFloat64", 8}};
    for (const Size& size : kSizes)
        if (size.name == datatype)
            return size.bytes;
    return 0;
}

void NcclCollectives::noteCall(const char* function, size_t count, const char* datatype) {
    PendingCalls& pending = t_pending;
    format::CollectiveCallRow& row = pending.row;
    const std::string_view name = function ? function : "";
    const std::string_view type = datatype ? datatype : "";
    if (pending.row.calls == 0) {
        row.function = name;
        row.datatype = type;
    } else {
        // "AllReduce+Broadcast" for a group that mixes calls; each name once (a whole part:
        // "Reduce" is not "AllReduce").
        const std::string joined = "+" + row.function + "+";
        if (joined.find("+" + std::string(name) + "+") == std::string::npos &&
            row.function.size() < 200)
            row.function.append("+").append(name);
        if (row.datatype != type)
            pending.mixedTypes = true;
    }
    const int element = elementBytes(type);
    pending.bytesKnown = pending.bytesKnown && element > 0;
    pending.bytes += int64_t(count) * element;
    row.count += int64_t(count);
    ++row.calls;
}

bool NcclCollectives::beginLaunch() {
    PendingCalls& pending = t_pending;
    if (pending.row.calls == 0)
        return false;
    format::CollectiveCallRow row = std::move(pending.row);
    if (pending.mixedTypes)
        row.datatype.clear();
    if (pending.bytesKnown)
        row.bytes = pending.bytes;
    pending = PendingCalls{};
    const uint64_t id = ++g_nextId;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        if (g_ring.empty())
            g_ring.resize(kRingSlots);
        Slot& slot = g_ring[id % kRingSlots];
        slot.id = id;
        slot.row = std::move(row);
    }
    return cuptiActivityPushExternalCorrelationId(kKind, id) == CUPTI_SUCCESS;
}

void NcclCollectives::endLaunch() {
    uint64_t id = 0;
    cuptiActivityPopExternalCorrelationId(kKind, &id);
}

std::optional<format::CollectiveCallRow> NcclCollectives::take(uint64_t externalId) {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (externalId == 0 || g_ring.empty())
        return std::nullopt;
    Slot& slot = g_ring[externalId % kRingSlots];
    if (slot.id != externalId)
        return std::nullopt;
    slot.id = 0;
    return std::move(slot.row);
}

std::string NcclCollectives::status(bool launchRecords) {
    const char* plugin = getenv("NCCL_PROFILER_PLUGIN");
    if (!plugin || !*plugin)
        return "off (NCCL_PROFILER_PLUGIN not set)";
    Dl_info self;
    struct stat named, ours;
    // The same file, however the two paths spell it.
    const bool isThisLibrary = dladdr(reinterpret_cast<void*>(&NcclCollectives::status), &self) &&
                               self.dli_fname && stat(plugin, &named) == 0 &&
                               stat(self.dli_fname, &ours) == 0 && named.st_dev == ours.st_dev &&
                               named.st_ino == ours.st_ino;
    if (!isThisLibrary)
        return "off (NCCL_PROFILER_PLUGIN names another plugin: " + std::string(plugin) + ")";
    return launchRecords ? "on" : "off (no launch API records)";
}

uint64_t NcclCollectives::launchesTagged() {
    return g_nextId.load(std::memory_order_relaxed);
}

} // namespace stallscope::recorder
