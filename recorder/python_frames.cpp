#include "recorder/python_frames.h"

#include "recorder/python_frame_walk.h"
#include "recorder/python_runtime.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace stallscope::recorder {

namespace {

using python_walk::DirectMemory;
using python_walk::FrameCache;
using Layout = PythonLayout;
using PointerGetter = PythonRuntime::PointerGetter;
using Addr2Line = PythonRuntime::Addr2Line;
using FrameIntGetter = PythonRuntime::FrameIntGetter;
using VersionGetter = const char* (*)();

PythonRuntime g_rt;
std::mutex g_initMutex;
bool g_initialized = false;

// ---- process-wide code table (append only, never freed) ----------------------------------------
constexpr uint32_t kMaxCodes = 1u << 16;
constexpr uint32_t kArenaBytes = 4u << 20;
struct CodeEntry {
    uint32_t file;
    uint32_t function;
};
CodeEntry* g_codes = nullptr;
char* g_arena = nullptr;
std::atomic<uint32_t> g_codeCount{1}; // id 0: unknown
std::atomic<uint32_t> g_arenaUsed{8};

// The calling thread's caches (allocated on its first capture).
thread_local FrameCache* t_cache = nullptr;
thread_local bool t_cacheFailed = false;

// The calling thread's line of a frame: CPython's own functions, which read only the frame and
// its code object's immutable line table; cached by (code, instruction offset).
int directLine(FrameCache& cache, const DirectMemory::View& frame, const void* frameAddress,
               const void* code, uint32_t id) {
    int lasti;
    if (g_rt.layout == Layout::FrameObject) {
        lasti = frame.at<int>(g_rt.frLasti);
        if (g_rt.lastiInUnits && lasti > 0)
            lasti *= 2;
    } else if (g_rt.frameLasti) {
        lasti = g_rt.frameLasti(frameAddress);
    } else {
        const char* instr = static_cast<const char*>(frame.pointer(g_rt.frInstr));
        lasti = int(instr - (static_cast<const char*>(code) + g_rt.coCode));
    }
    FrameCache::LineSlot& slot = cache.lineSlot(code, lasti);
    if (slot.code == code && slot.lasti == lasti && slot.id == id)
        return slot.line;
    const int line = g_rt.frameLine ? g_rt.frameLine(frameAddress) : g_rt.addr2line(code, lasti);
    slot = {code, lasti, line, id};
    return line;
}

void* symbol(const char* name) {
    return dlsym(RTLD_DEFAULT, name);
}

// 3.13+: the runtime starts with _Py_DebugOffsets (cookie "xdebugpy"). Its sections are found by
// fields whose values never change (PyThreadState prev/next/interp = 0/8/16, frame previous/
// executable = 8/0, co_filename/co_name/co_qualname adjacent), so the optional `size` members
// and `free_threaded` of later patch releases do not matter. The sampler's interpreter offset
// (threads_head, 11 words before thread_state.prev where the sections have `size` members) is a
// guess that python_sampler.cpp checks against PyInterpreterState_ThreadHead before any use.
bool readDebugOffsets() {
    const auto* runtime = static_cast<const char*>(symbol("_PyRuntime"));
    if (!runtime || memcmp(runtime, "xdebugpy", 8) != 0)
        return false;
    uint64_t w[80];
    memcpy(w, runtime, sizeof(w));
    int i = 2, j, k;
    for (; i < 40; ++i)
        if (w[i] == 0 && w[i + 1] == 8 && w[i + 2] == 16 && w[i + 3] >= 24 && w[i + 3] < 1024)
            break;
    if (i >= 40)
        return false;
    for (j = i + 4; j < i + 24; ++j)
        if (w[j] == 8 && w[j + 1] == 0 && w[j + 2] < 256 && w[j + 4] < 256)
            break;
    if (j >= i + 24)
        return false;
    for (k = j + 5; k < j + 24; ++k)
        if (w[k] >= 24 && w[k] < 512 && w[k + 1] == w[k] + 8 && w[k + 2] == w[k] + 16)
            break;
    if (k >= j + 24)
        return false;
    g_rt.tsFrame = int(w[i + 3]);
    g_rt.frBack = 8;
    g_rt.frCode = 0;
    g_rt.frInstr = int(w[j + 2]);
    g_rt.frOwner = int(w[j + 4]);
    g_rt.coFilename = int(w[k]);
    g_rt.coName = int(w[k + 1]);
    g_rt.coFirstLine = int(w[k + 4]);
    g_rt.coLinetable = int(w[k + 3]);
    if (w[k + 8] > w[k + 4] && w[k + 8] < 512)
        g_rt.coCode = int(w[k + 8]);
    g_rt.tsNativeThreadId = w[i + 5] < 1024 ? int(w[i + 5]) : -1;
    if (i >= 11 && w[i - 11] < 4096)
        g_rt.interpThreadsHead = int(w[i - 11]);
    return true;
}

// Offsets per version: 3.9/3.10 and 3.11 checked against their headers, 3.12 against its
// PyCodeObject, PyThreadState, _is and _PyInterpreterFrame definitions; tests/recorder checks the
// public ones against this machine's Python.h (python_host.cpp).
bool setLayout(int minor) {
    PythonRuntime& r = g_rt;
    r.asciiSize = minor >= 12 ? 40 : 48; // PyASCIIObject lost `wstr` in 3.12
    r.compactSize = minor >= 12 ? 56 : 72;
    switch (minor) {
    case 9:
    case 10:
        r.layout = Layout::FrameObject;
        r.tsFrame = 24;
        r.frBack = 24;
        r.frCode = 32;
        r.frLasti = minor == 9 ? 104 : 96;
        r.lastiInUnits = minor == 10;
        r.coFilename = 104;
        r.coName = 112;
        r.coFirstLine = 40;
        r.coLinetable = 120; // co_lnotab (3.9), co_linetable (3.10): not read by the sampler
        return r.addr2line != nullptr;
    case 11: // offsets checked against Debian's 3.11 headers (tests/recorder)
        r.layout = Layout::InterpreterFrame;
        r.tsFrame = 56;
        r.cframeCurrent = 8;
        r.frCode = 32;
        r.frBack = 48;
        r.frInstr = 56;
        r.frIsEntry = 68;
        r.coFilename = 112;
        r.coName = 120;
        r.coFirstLine = 72;
        r.coLinetable = 136;
        r.coCode = 184;
        r.interpThreadsHead = 16;
        r.tsNativeThreadId = 160;
        return r.addr2line != nullptr;
    case 12:
        r.layout = Layout::InterpreterFrame;
        r.tsFrame = 56;
        r.cframeCurrent = 0;
        r.frCode = 0;
        r.frBack = 8;
        r.frInstr = 56; // prev_instr
        r.frOwner = 70;
        r.coFilename = 112;
        r.coName = 120;
        r.coFirstLine = 68;
        r.coLinetable = 136;
        r.coCode = 192;
        r.interpThreadsHead = 72;
        r.tsNativeThreadId = 144;
        return r.frameLine && r.frameLasti;
    case 13:
        r.layout = Layout::InterpreterFrame;
        return readDebugOffsets() && r.frameLine && r.frameLasti;
    default:
        return false;
    }
}

bool initializeLocked() {
    auto getVersion = reinterpret_cast<VersionGetter>(symbol("Py_GetVersion"));
    if (!getVersion) {
        g_rt.status = "no CPython in this process";
        return false;
    }
    const char* text = getVersion();
    int major = 0, minor = 0;
    if (!text || sscanf(text, "%d.%d", &major, &minor) != 2) {
        g_rt.status = "unreadable Py_GetVersion()";
        return false;
    }
    snprintf(g_rt.version, sizeof(g_rt.version), "%d.%d", major, minor);
    if (strstr(text, "free-threading") || symbol("_Py_ForgetReference")) {
        g_rt.status = "free-threaded or Py_TRACE_REFS build: object layout not supported";
        return false;
    }
    g_rt.threadState = reinterpret_cast<PointerGetter>(symbol("PyGILState_GetThisThreadState"));
    g_rt.addr2line = reinterpret_cast<Addr2Line>(symbol("PyCode_Addr2Line"));
    g_rt.frameLine =
        reinterpret_cast<FrameIntGetter>(symbol("PyUnstable_InterpreterFrame_GetLine"));
    g_rt.frameLasti =
        reinterpret_cast<FrameIntGetter>(symbol("PyUnstable_InterpreterFrame_GetLasti"));
    g_rt.codeType = symbol("PyCode_Type");
    g_rt.unicodeType = symbol("PyUnicode_Type");
    g_rt.bytesType = symbol("PyBytes_Type");
    g_rt.interpreterHead = reinterpret_cast<PointerGetter>(symbol("PyInterpreterState_Head"));
    g_rt.threadHead =
        reinterpret_cast<PythonRuntime::PointerOf>(symbol("PyInterpreterState_ThreadHead"));
    g_rt.finalizing = reinterpret_cast<PythonRuntime::Finalizing>(symbol("Py_IsFinalizing"));
    if (!g_rt.finalizing)
        g_rt.finalizing = reinterpret_cast<PythonRuntime::Finalizing>(symbol("_Py_IsFinalizing"));
    g_rt.minor = minor;
    if (major != 3 || !g_rt.threadState || !g_rt.codeType || !g_rt.unicodeType ||
        !setLayout(minor)) {
        g_rt.status = "unsupported CPython version or missing symbols (3.9-3.13 supported)";
        return false;
    }
    g_rt.frameBytes = std::max({g_rt.frBack, g_rt.frCode, g_rt.frInstr, g_rt.frOwner,
                                g_rt.frIsEntry, g_rt.frLasti}) +
                      8;
    g_rt.codeBytes = std::max({PythonRuntime::kObTypeOffset, g_rt.coFilename, g_rt.coName,
                               g_rt.coFirstLine, g_rt.coLinetable}) +
                     8;
    g_rt.threadStateBytes = std::max({g_rt.tsFrame, g_rt.tsNativeThreadId}) + 8;
    if (void* eval = symbol("_PyEval_EvalFrameDefault")) {
        Dl_info info;
        ElfW(Sym)* sym = nullptr;
        if (dladdr1(eval, &info, reinterpret_cast<void**>(&sym), RTLD_DL_SYMENT) && sym) {
            g_rt.evalStart = reinterpret_cast<uintptr_t>(eval);
            g_rt.evalEnd = g_rt.evalStart + (sym->st_size ? sym->st_size : 1);
        }
    }
    g_codes = static_cast<CodeEntry*>(calloc(kMaxCodes, sizeof(CodeEntry)));
    g_arena = static_cast<char*>(calloc(kArenaBytes, 1));
    if (!g_codes || !g_arena) {
        g_rt.status = "out of memory";
        return false;
    }
    memcpy(g_arena, "?", 2); // entry 0 (and entries without room) read "?"
    g_rt.status = "on";
    return true;
}

} // namespace

const PythonRuntime& pythonRuntime() {
    return g_rt;
}

uint32_t addPythonCode(const char* file, size_t fileLength, const char* function,
                       size_t functionLength) {
    const uint32_t id = g_codeCount.fetch_add(1, std::memory_order_relaxed);
    if (id >= kMaxCodes)
        return 0;
    const auto bytes = uint32_t(fileLength + functionLength + 2);
    const uint32_t offset = g_arenaUsed.fetch_add(bytes, std::memory_order_relaxed);
    if (offset + bytes > kArenaBytes) {
        g_codes[id] = {0, 0};
        return id;
    }
    memcpy(g_arena + offset, file, fileLength);
    g_arena[offset + fileLength] = '\0';
    memcpy(g_arena + offset + fileLength + 1, function, functionLength);
    g_arena[offset + fileLength + 1 + functionLength] = '\0';
    g_codes[id] = {offset, uint32_t(offset + fileLength + 1)};
    return id;
}

namespace python_walk {

void putUtf8(uint32_t c, char* out, size_t cap, size_t* n) {
    char buffer[4];
    size_t k;
    if (c < 0x80) {
        buffer[0] = char(c);
        k = 1;
    } else if (c < 0x800) {
        buffer[0] = char(0xC0 | (c >> 6));
        buffer[1] = char(0x80 | (c & 0x3F));
        k = 2;
    } else if (c < 0x10000) {
        buffer[0] = char(0xE0 | (c >> 12));
        buffer[1] = char(0x80 | ((c >> 6) & 0x3F));
        buffer[2] = char(0x80 | (c & 0x3F));
        k = 3;
    } else {
        buffer[0] = char(0xF0 | ((c >> 18) & 0x07));
        buffer[1] = char(0x80 | ((c >> 12) & 0x3F));
        buffer[2] = char(0x80 | ((c >> 6) & 0x3F));
        buffer[3] = char(0x80 | (c & 0x3F));
        k = 4;
    }
    if (*n + k >= cap)
        return;
    memcpy(out + *n, buffer, k);
    *n += k;
}

} // namespace python_walk

bool PythonFrames::initialize() {
    std::lock_guard<std::mutex> lock(g_initMutex);
    if (!g_initialized) {
        g_initialized = true;
        g_rt.available = initializeLocked();
    }
    return g_rt.available;
}

bool PythonFrames::available() {
    return g_rt.available;
}
const char* PythonFrames::version() {
    return g_rt.version;
}
const char* PythonFrames::status() {
    return g_rt.status;
}

int PythonFrames::capture(uint64_t* out, int maxFrames) {
    if (!g_rt.available || maxFrames <= 0)
        return 0;
    FrameCache* cache = t_cache;
    if (!cache) {
        if (t_cacheFailed)
            return 0;
        cache = t_cache = static_cast<FrameCache*>(calloc(1, sizeof(FrameCache)));
        if (!cache) {
            t_cacheFailed = true;
            return 0;
        }
    }
    const void* tstate = g_rt.threadState();
    if (!tstate)
        return 0; // a thread that never ran Python
    const void* frame = python_walk::firstFrame<DirectMemory>(DirectMemory::view(tstate, 0));
    return python_walk::walkFrames<DirectMemory>(
        *cache, frame, out, maxFrames,
        [cache](const DirectMemory::View& view, const void* frameAddress, const void* code,
                const DirectMemory::View&,
                uint32_t id) { return directLine(*cache, view, frameAddress, code, id); },
        [](const DirectMemory::View&, const void*, uint32_t) { return python_walk::kNotCached; });
}

PythonFrames::CodeInfo PythonFrames::codeInfo(uint32_t codeId) {
    CodeInfo info;
    if (!g_codes || codeId >= kMaxCodes || codeId >= g_codeCount.load(std::memory_order_acquire))
        return info;
    const CodeEntry& entry = g_codes[codeId];
    info.file = g_arena + entry.file;
    info.function = g_arena + entry.function;
    return info;
}

bool PythonFrames::isEvalLoopPc(uintptr_t pc) {
    return pc > g_rt.evalStart && pc - 1 < g_rt.evalEnd && g_rt.evalStart != 0;
}

} // namespace stallscope::recorder
