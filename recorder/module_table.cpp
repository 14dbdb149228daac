#include "recorder/module_table.h"

#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace stallscope::recorder {

namespace {

int readCounters(dl_phdr_info* info, size_t size, void* data) {
    auto* counters = static_cast<ModuleTable::LoadCounters*>(data);
    if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
        counters->adds = info->dlpi_adds;
        counters->subs = info->dlpi_subs;
    }
    return 1; // the counters are the same in every entry: one is enough
}

std::string readBuildId(const dl_phdr_info* info) {
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& header = info->dlpi_phdr[i];
        if (header.p_type != PT_NOTE)
            continue;
        const char* p = reinterpret_cast<const char*>(info->dlpi_addr + header.p_vaddr);
        const char* end = p + header.p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            ElfW(Nhdr) note;
            memcpy(&note, p, sizeof(note));
            const char* name = p + sizeof(note);
            const char* desc = name + ((note.n_namesz + 3) & ~3u);
            const char* next = desc + ((note.n_descsz + 3) & ~3u);
            if (next > end)
                break;
            if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
                memcmp(name, "GNU", 4) == 0) {
                static const char digits[] = "0123456789abcdef";
                std::string hex;
                hex.reserve(note.n_descsz * 2);
                for (unsigned j = 0; j < note.n_descsz; ++j) {
                    unsigned char c = static_cast<unsigned char>(desc[j]);
                    hex += digits[c >> 4];
                    hex += digits[c & 15];
                }
                return hex;
            }
            p = next;
        }
    }
    return {};
}

std::string executablePath() {
    char buffer[4096];
    ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
    return n > 0 ? std::string(buffer, size_t(n)) : std::string();
}

int collect(dl_phdr_info* info, size_t, void* data) {
    auto* out = static_cast<std::vector<ModuleTable::Module>*>(data);
    ModuleTable::Module module;
    module.loadBias = info->dlpi_addr;
    uintptr_t low = UINTPTR_MAX, high = 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& header = info->dlpi_phdr[i];
        if (header.p_type != PT_LOAD)
            continue;
        low = std::min<uintptr_t>(low, info->dlpi_addr + header.p_vaddr);
        high = std::max<uintptr_t>(high, info->dlpi_addr + header.p_vaddr + header.p_memsz);
    }
    if (high == 0)
        return 0;
    module.start = low;
    module.end = high;
    module.path = info->dlpi_name ? info->dlpi_name : "";
    if (module.path.empty() && out->empty())
        module.path = executablePath(); // the first entry is the main program, named ""
    if (module.path.empty())
        return 0; // the vDSO: nothing to symbolize from disk
    module.buildId = readBuildId(info);
    out->push_back(std::move(module));
    return 0;
}

} // namespace

ModuleTable::LoadCounters ModuleTable::loadCounters() {
    LoadCounters counters{0, 0};
    dl_iterate_phdr(readCounters, &counters);
    return counters;
}

bool ModuleTable::changed() const {
    return !(loadCounters() == m_counters);
}

std::vector<ModuleTable::Module> ModuleTable::refresh() {
    const LoadCounters counters = loadCounters();
    if (counters == m_counters)
        return {};
    m_counters = counters;
    std::vector<Module> scanned;
    dl_iterate_phdr(collect, &scanned);
    std::vector<Module> added;
    for (Module& module : scanned) {
        bool known = std::any_of(m_modules.begin(), m_modules.end(), [&](const Module& m) {
            return m.start == module.start && m.path == module.path;
        });
        if (!known)
            added.push_back(module);
    }
    // Keep unloaded modules: PCs captured before a dlclose must stay resolvable.
    for (const Module& module : added)
        m_modules.push_back(module);
    std::sort(m_modules.begin(), m_modules.end(),
              [](const Module& a, const Module& b) { return a.start < b.start; });
    return added;
}

int ModuleTable::find(uintptr_t pc) const {
    auto it = std::upper_bound(m_modules.begin(), m_modules.end(), pc,
                               [](uintptr_t value, const Module& m) { return value < m.start; });
    // Search backwards: an unloaded module may overlap a later one at the same address.
    while (it != m_modules.begin()) {
        --it;
        if (pc >= it->start && pc < it->end)
            return int(it - m_modules.begin());
        if (it->end <= pc && pc - it->end > (uintptr_t(1) << 40))
            break;
    }
    return -1;
}

} // namespace stallscope::recorder
