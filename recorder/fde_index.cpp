#include "recorder/fde_index.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace stallscope::recorder {

namespace {

// The .eh_frame_hdr layout GNU ld and lld write: eh_frame_ptr pc-relative, the count unsigned,
// the table's entries relative to the header, all 4 bytes (LSB, "eh_frame_hdr").
constexpr uint8_t kPcrelSdata4 = 0x1b;
constexpr uint8_t kUdata4 = 0x03;
constexpr uint8_t kDatarelSdata4 = 0x3b;
constexpr int kPageShift = 12;
// Modules indexed over the process's life (insert-only: unloaded ones keep their slot).
constexpr size_t kSlots = 4096;
constexpr int kProbes = 16;

struct ModuleIndex {
    const void* linkMap;
    uintptr_t mapStart;
    uintptr_t mapEnd;
    uintptr_t header;
    const int32_t* entries;
    uint32_t count;
    uintptr_t firstLocation; // the table's lowest initial location (absolute)
    uint32_t pages;          // 4 KiB pages from firstLocation to the last initial location
    uint32_t* firstEntry;    // pages + 1 slots: the first entry at or after each page's start
};

std::atomic<const ModuleIndex*> g_slots[kSlots];
std::atomic<uint64_t> g_modules{0};
std::atomic<uint64_t> g_bytes{0};

#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 35)
using FindObject = int (*)(void*, dl_find_object*);
// Resolved at run time, since the recorder must load on glibc < 2.35 too (then every lookup falls
// back), and only by the indexing thread outside dl_iterate_phdr: dlsym takes the loader's lock,
// which inside dl_iterate_phdr (or on a target thread inside a CUDA call) can deadlock with a
// concurrent dlopen. Target threads only read the pointer.
std::atomic<FindObject> g_findObject{nullptr};
void resolveFindObject() {
    if (!g_findObject.load(std::memory_order_acquire))
        g_findObject.store(reinterpret_cast<FindObject>(dlsym(RTLD_DEFAULT, "_dl_find_object")),
                           std::memory_order_release);
}
FindObject findObject() {
    return g_findObject.load(std::memory_order_acquire);
}
#else
void resolveFindObject() {}
#endif

size_t slotOf(uintptr_t header) {
    return size_t((header * 0x9E3779B97F4A7C15ull) >> 40);
}

uintptr_t location(uintptr_t header, const int32_t* entries, uint32_t i) {
    return header + intptr_t(entries[2 * size_t(i)]);
}

bool sameModule(const ModuleIndex& index, const void* linkMap, uintptr_t mapStart, uintptr_t mapEnd,
                uintptr_t header, uint32_t count) {
    return index.header == header && index.linkMap == linkMap && index.mapStart == mapStart &&
           index.mapEnd == mapEnd && index.count == count;
}

// Builds and publishes the index of one module's table; false if it was indexed already or
// cannot be (unsorted table, glibc without _dl_find_object, no free slot).
bool indexModule(const FdeIndex::Table& table) {
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 35)
    FindObject find = findObject();
    dl_find_object object{};
    if (!find || find(reinterpret_cast<void*>(table.header), &object) != 0 ||
        reinterpret_cast<uintptr_t>(object.dlfo_eh_frame) != table.header)
        return false;
    const auto mapStart = reinterpret_cast<uintptr_t>(object.dlfo_map_start);
    const auto mapEnd = reinterpret_cast<uintptr_t>(object.dlfo_map_end);
    const size_t home = slotOf(table.header);
    size_t freeSlot = kSlots;
    for (int probe = 0; probe < kProbes; ++probe) {
        const size_t slot = (home + size_t(probe)) & (kSlots - 1);
        const ModuleIndex* existing = g_slots[slot].load(std::memory_order_acquire);
        if (!existing) {
            freeSlot = slot;
            break;
        }
        if (sameModule(*existing, object.dlfo_link_map, mapStart, mapEnd, table.header,
                       table.count))
            return false;
    }
    if (freeSlot == kSlots)
        return false;
    const uintptr_t first = location(table.header, table.entries, 0);
    const uintptr_t last = location(table.header, table.entries, table.count - 1);
    if (last < first || ((last - first) >> kPageShift) >= (uint64_t(1) << 28))
        return false;
    const uint32_t pages = uint32_t((last - first) >> kPageShift) + 1;
    // One block: the module's facts, then its page slots.
    const size_t bytes = sizeof(ModuleIndex) + sizeof(uint32_t) * (size_t(pages) + 1);
    auto* index = static_cast<ModuleIndex*>(malloc(bytes));
    if (!index)
        return false;
    *index = ModuleIndex{object.dlfo_link_map,
                         mapStart,
                         mapEnd,
                         table.header,
                         table.entries,
                         table.count,
                         first,
                         pages,
                         reinterpret_cast<uint32_t*>(index + 1)};
    uint32_t page = 0;
    uintptr_t previous = first;
    for (uint32_t i = 0; i < table.count; ++i) {
        const uintptr_t at = location(table.header, table.entries, i);
        if (at < previous) { // not sorted: the binary search libgcc does would be wrong too
            free(index);
            return false;
        }
        previous = at;
        // Pages not yet given an entry start above the previous entry: this one is their first.
        while (page < pages && first + (uintptr_t(page) << kPageShift) <= at)
            index->firstEntry[page++] = i;
    }
    while (page <= pages)
        index->firstEntry[page++] = table.count;
    g_slots[freeSlot].store(index, std::memory_order_release);
    g_modules.fetch_add(1, std::memory_order_relaxed);
    g_bytes.fetch_add(bytes, std::memory_order_relaxed);
    return true;
#else
    (void)table;
    return false;
#endif
}

int indexEach(dl_phdr_info* module, size_t, void* indexed) {
    FdeIndex::Table table = FdeIndex::tableOf(*module);
    if (table.count > 0 && indexModule(table))
        ++*static_cast<int*>(indexed);
    return 0;
}

} // namespace

FdeIndex::Table FdeIndex::tableOf(const dl_phdr_info& module) {
    uintptr_t header = 0, headerEnd = 0;
    for (int i = 0; i < module.dlpi_phnum; ++i) {
        const ElfW(Phdr)& segment = module.dlpi_phdr[i];
        if (segment.p_type == PT_GNU_EH_FRAME) {
            header = module.dlpi_addr + segment.p_vaddr;
            headerEnd = header + segment.p_memsz;
        }
    }
    // The header must lie inside a loaded segment before a byte of it is read.
    bool mapped = false;
    for (int i = 0; i < module.dlpi_phnum && header; ++i) {
        const ElfW(Phdr)& segment = module.dlpi_phdr[i];
        const uintptr_t low = module.dlpi_addr + segment.p_vaddr;
        mapped |= segment.p_type == PT_LOAD && header >= low &&
                  headerEnd <= low + segment.p_memsz && header <= headerEnd;
    }
    if (!mapped || headerEnd - header < 12 || (header & 3))
        return {};
    const auto* bytes = reinterpret_cast<const uint8_t*>(header);
    if (bytes[0] != 1 || bytes[1] != kPcrelSdata4 || bytes[2] != kUdata4 ||
        bytes[3] != kDatarelSdata4)
        return {};
    uint32_t count = 0;
    memcpy(&count, bytes + 8, sizeof count);
    if (count == 0 || count > (headerEnd - header - 12) / 8)
        return {};
    return {header, reinterpret_cast<const int32_t*>(header + 12), count};
}

const uint8_t* FdeIndex::find(uintptr_t pc) {
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 35)
    if (g_modules.load(std::memory_order_relaxed) == 0)
        return nullptr;
    FindObject find = findObject();
    dl_find_object object;
    if (!find || find(reinterpret_cast<void*>(pc), &object) != 0 || !object.dlfo_eh_frame)
        return nullptr;
    const auto header = reinterpret_cast<uintptr_t>(object.dlfo_eh_frame);
    const auto mapStart = reinterpret_cast<uintptr_t>(object.dlfo_map_start);
    const auto mapEnd = reinterpret_cast<uintptr_t>(object.dlfo_map_end);
    if (header < mapStart || header + 12 > mapEnd)
        return nullptr;
    uint32_t liveCount;
    memcpy(&liveCount, reinterpret_cast<const void*>(header + 8), sizeof liveCount);
    const size_t home = slotOf(header);
    const ModuleIndex* index = nullptr;
    for (int probe = 0; probe < kProbes && !index; ++probe) {
        const ModuleIndex* candidate =
            g_slots[(home + size_t(probe)) & (kSlots - 1)].load(std::memory_order_acquire);
        if (!candidate)
            return nullptr;
        if (sameModule(*candidate, object.dlfo_link_map, mapStart, mapEnd, header, liveCount))
            index = candidate;
    }
    if (!index || pc < index->firstLocation)
        return nullptr;
    uint64_t page = (pc - index->firstLocation) >> kPageShift;
    if (page >= index->pages)
        page = index->pages - 1;
    uint32_t low = index->firstEntry[page];
    low = low ? low - 1 : 0;
    uint32_t high = index->firstEntry[page + 1];
    if (high <= low)
        high = low + 1;
    // The last entry at or below pc: low always qualifies (it starts before this page, or it is
    // the module's first entry, at or below pc).
    while (high - low > 1) {
        const uint32_t middle = low + (high - low) / 2;
        if (location(header, index->entries, middle) <= pc)
            low = middle;
        else
            high = middle;
    }
    const uintptr_t fde = header + intptr_t(index->entries[2 * size_t(low) + 1]);
    if (fde < mapStart || fde + 8 > mapEnd)
        return nullptr;
    return reinterpret_cast<const uint8_t*>(fde);
#else
    (void)pc;
    return nullptr;
#endif
}

int FdeIndex::indexNewModules() {
    resolveFindObject();
    const ModuleTable::LoadCounters counters = ModuleTable::loadCounters();
    if (counters == m_counters)
        return 0;
    m_counters = counters;
    int indexed = 0;
    dl_iterate_phdr(indexEach, &indexed);
    return indexed;
}

uint64_t FdeIndex::indexedModules() {
    return g_modules.load(std::memory_order_relaxed);
}
uint64_t FdeIndex::indexBytes() {
    return g_bytes.load(std::memory_order_relaxed);
}

void FdeIndex::start() {
    if (m_thread.joinable())
        return;
    m_stop.store(false);
    m_started.store(true);
    m_thread = std::thread([this] { run(); });
}

void FdeIndex::stop() {
    m_stop.store(true);
    if (m_thread.joinable())
        m_thread.join();
}

void FdeIndex::forgetAfterFork() {
    if (m_thread.joinable())
        new (&m_thread) std::thread(); // the parent's thread: not ours to join or detach here
}

void FdeIndex::run() {
    pthread_setname_np(pthread_self(), "stallscope-fde");
    while (!m_stop.load(std::memory_order_relaxed)) {
        indexNewModules();
        for (int i = 0; i < 5 && !m_stop.load(std::memory_order_relaxed); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

std::string FdeIndex::describe() const {
    if (!m_started.load())
        return "off";
    char text[64];
    snprintf(text, sizeof(text), "%llu modules, %llu KiB", (unsigned long long)indexedModules(),
             (unsigned long long)(indexBytes() / 1024));
    return text;
}

} // namespace stallscope::recorder
