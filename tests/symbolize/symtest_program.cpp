// The symbolization test's recorded "target": a PIE executable built with -g that dlopens
// libsymtest_lib.so and its stripped copy, captures return addresses at call sites whose lines it
// knows, records its module table like the recorder does (dl_iterate_phdr: path, load bias, address
// range, build id from PT_NOTE) and writes a session with those frames, stacks and syncs.
// The expected file:line facts go into meta keys "expect.*" for the test to check.
//
// usage: symtest_program SESSION LIB STRIPPED_LIB SCRIPT.py
#include "format/session_writer.h"
#include "tests/symbolize/symtest_sites.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace stallscope::format;

// A module as the recorder would write it, with the row id the writer gave it.
struct LoadedModule : ModuleRow {
    int64_t rowId = 0;
};

std::string hex(const unsigned char* data, size_t size) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (size_t i = 0; i < size; ++i) {
        out.push_back(digits[data[i] >> 4]);
        out.push_back(digits[data[i] & 15]);
    }
    return out;
}

std::string buildIdInMemory(const dl_phdr_info* info) {
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_NOTE)
            continue;
        auto* at = reinterpret_cast<const unsigned char*>(info->dlpi_addr + ph.p_vaddr);
        const unsigned char* end = at + ph.p_memsz;
        while (at + sizeof(ElfW(Nhdr)) <= end) {
            auto* note = reinterpret_cast<const ElfW(Nhdr)*>(at);
            const unsigned char* name = at + sizeof(ElfW(Nhdr));
            const unsigned char* desc = name + ((note->n_namesz + 3) & ~3u);
            if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
                std::memcmp(name, "GNU", 4) == 0)
                return hex(desc, note->n_descsz);
            at = desc + ((note->n_descsz + 3) & ~3u);
        }
    }
    return {};
}

int collectModule(dl_phdr_info* info, size_t, void* data) {
    auto* modules = static_cast<std::vector<LoadedModule>*>(data);
    LoadedModule module;
    module.path = info->dlpi_name ? info->dlpi_name : "";
    if (module.path.empty() && modules->empty()) {
        // The main executable is reported without a name.
        char self[PATH_MAX];
        const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        module.path = n > 0 ? std::string(self, size_t(n)) : "";
    }
    module.loadBias = static_cast<int64_t>(info->dlpi_addr);
    module.startAddress = INT64_MAX;
    module.endAddress = 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_LOAD)
            continue;
        module.startAddress =
            std::min<int64_t>(module.startAddress, int64_t(info->dlpi_addr + ph.p_vaddr));
        module.endAddress = std::max<int64_t>(module.endAddress,
                                              int64_t(info->dlpi_addr + ph.p_vaddr + ph.p_memsz));
    }
    module.buildId = buildIdInMemory(info);
    if (module.endAddress > module.startAddress)
        modules->push_back(module);
    return 0;
}

const LoadedModule* moduleOf(const std::vector<LoadedModule>& modules, const void* pc) {
    const auto address = reinterpret_cast<int64_t>(pc);
    for (const LoadedModule& module : modules)
        if (address >= module.startAddress && address < module.endAddress)
            return &module;
    return nullptr;
}

extern "C" __attribute__((noinline)) void* programCapture() {
    void* pc = __builtin_return_address(0);
    asm volatile("" ::: "memory");
    return pc;
}

} // namespace

// Each call and its __LINE__ must stay on one line, hence no formatting here.
// clang-format off
namespace app {
__attribute__((noinline)) void* issueSync(int* line) {
    void* pc = programCapture(); *line = __LINE__;
    asm volatile("" ::: "memory");
    return pc;
}
} // namespace app
// clang-format on

int main(int argc, char** argv) {
    if (argc != 5) {
        std::fprintf(stderr, "usage: %s SESSION LIB STRIPPED_LIB SCRIPT.py\n", argv[0]);
        return 2;
    }
    SymtestSites lib, stripped;
    for (auto [path, sites] : {std::pair{argv[2], &lib}, std::pair{argv[3], &stripped}}) {
        void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        auto run =
            handle ? reinterpret_cast<SymtestLibRunFn>(dlsym(handle, "symtestLibRun")) : nullptr;
        if (!run) {
            std::fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
            return 1;
        }
        run(sites);
    }
    int programLine = 0;
    void* programPc = app::issueSync(&programLine);

    std::vector<LoadedModule> modules;
    dl_iterate_phdr(collectModule, &modules);

    std::string error;
    auto writer = SessionWriter::create(argv[1], &error);
    if (!writer) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    const int64_t process =
        writer->addProcess({getpid(), "test-host", "symtest_program", 0, 1000, 0});
    const int64_t thread = writer->addThread({process, gettid(), "main"});
    for (LoadedModule& module : modules) {
        module.processId = process;
        module.rowId = writer->addModule(module);
    }
    // Modules that are not on this machine: a fake CUDA driver and an unknown library.
    const int64_t fakeCudaBase = int64_t(1) << 40, ghostBase = int64_t(2) << 40;
    const int64_t fakeCuda = writer->addModule({process, "/nonexistent/libcuda.so.1", fakeCudaBase,
                                                fakeCudaBase, fakeCudaBase + 0x100000, "", 0});
    const int64_t ghost = writer->addModule(
        {process, "/nonexistent/libghost.so", ghostBase, ghostBase, ghostBase + 0x100000, "", 0});

    auto nativeFrame = [&](const void* pc) {
        const LoadedModule* module = moduleOf(modules, pc);
        FrameRow row;
        row.address = reinterpret_cast<int64_t>(pc);
        if (module)
            row.moduleId = module->rowId;
        return writer->addFrame(row);
    };
    auto expect = [&](const std::string& key, int64_t value) {
        writer->setMeta("expect." + key, std::to_string(value));
    };

    const int64_t programFrame = nativeFrame(programPc);
    const int64_t libPlain = nativeFrame(lib.plainPc);
    const int64_t libInline = nativeFrame(lib.inlinePc);
    const int64_t strippedPlain = nativeFrame(stripped.plainPc);
    const int64_t strippedInline = nativeFrame(stripped.inlinePc);
    const int64_t libEntry = nativeFrame(lib.entryPc);
    const int64_t strippedEntry = nativeFrame(stripped.entryPc);
    const int64_t libcFrame = nativeFrame(reinterpret_cast<const char*>(&getpid) + 8);
    FrameRow cudaRow;
    cudaRow.address = fakeCudaBase + 0x500;
    cudaRow.moduleId = fakeCuda;
    const int64_t cudaFrame = writer->addFrame(cudaRow);
    FrameRow ghostRow;
    ghostRow.address = ghostBase + 0x500;
    ghostRow.moduleId = ghost;
    const int64_t ghostFrame = writer->addFrame(ghostRow);
    FrameRow nowhereRow;
    nowhereRow.address = 0x42; // in no module at all
    const int64_t nowhereFrame = writer->addFrame(nowhereRow);
    FrameRow pyUser{FrameKind::Python, {}, {}, "train_step", argv[4], 7, {}};
    const int64_t pyUserFrame = writer->addFrame(pyUser);
    FrameRow pyTorch{FrameKind::Python,
                     {},
                     {},
                     "synchronize",
                     "/usr/lib/python3/dist-packages/torch/cuda/__init__.py",
                     985,
                     {}};
    const int64_t pyTorchFrame = writer->addFrame(pyTorch);

    expect("program.frame", programFrame);
    expect("program.line", programLine);
    expect("lib_plain.frame", libPlain);
    expect("lib_plain.line", lib.plainLine);
    expect("lib_inline.frame", libInline);
    expect("lib_inline.line", lib.inlineLine);
    expect("lib_inline.outer_line", lib.outerLine);
    expect("stripped_plain.frame", strippedPlain);
    expect("stripped_inline.frame", strippedInline);
    expect("lib_entry.frame", libEntry);
    expect("lib_entry.line", lib.entryLine);
    expect("stripped_entry.frame", strippedEntry);
    expect("libc.frame", libcFrame);
    expect("cuda.frame", cudaFrame);
    expect("ghost.frame", ghostFrame);
    expect("nowhere.frame", nowhereFrame);
    expect("py_user.frame", pyUserFrame);
    expect("py_torch.frame", pyTorchFrame);

    // Stacks innermost first, as the recorder writes them.
    const std::vector<std::vector<int64_t>> stacks = {
        {cudaFrame, libInline, libPlain, programFrame},       // user frame: the inlined lib call
        {cudaFrame, libcFrame},                               // <driver-internal>
        {cudaFrame, pyTorchFrame, pyUserFrame, programFrame}, // user frame: the Python line
        {strippedPlain, strippedInline, ghostFrame, nowhereFrame} // user frame: stripped lib
    };
    int64_t start = 100;
    for (size_t i = 0; i < stacks.size(); ++i) {
        const int64_t stack = writer->addStack(i + 1, stacks[i]);
        SyncRow sync;
        sync.threadId = thread;
        sync.startNs = start;
        sync.endNs = start + 50;
        sync.correlationId = int64_t(i + 1);
        sync.stackId = stack;
        writer->addSync(sync);
        start += 100;
    }
    if (!writer->finish(kStatusComplete)) {
        std::fprintf(stderr, "%s\n", writer->lastError().c_str());
        return 1;
    }
    return 0;
}
