#include "recorder/python_frames.h"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace stallscope::recorder {

namespace {

using PointerGetter = const void* (*)();
using VersionGetter = const char* (*)();
using Addr2Line = int (*)(const void* code, int byteOffset);
using FrameIntGetter = int (*)(const void* frame);

enum class Layout : uint8_t {
    None,
    FrameObject,      // 3.9, 3.10: PyFrameObject chain
    InterpreterFrame, // 3.11+: _PyInterpreterFrame chain
};

constexpr int kOwnedByCStack = 3; // FRAME_OWNED_BY_CSTACK (3.12, 3.13)
constexpr int kObTypeOffset = 8;  // PyObject.ob_type (default, GIL builds)
constexpr int kUnicodeLengthOffset = 16;
constexpr int kUnicodeStateOffset = 32;

struct Runtime {
    bool available = false;
    char version[16] = "";
    const char* status = "not initialized";
    PointerGetter threadState = nullptr;
    Addr2Line addr2line = nullptr;
    FrameIntGetter frameLine = nullptr;  // PyUnstable_InterpreterFrame_GetLine (3.12+)
    FrameIntGetter frameLasti = nullptr; // PyUnstable_InterpreterFrame_GetLasti (3.12+), bytes
    const void* codeType = nullptr;
    const void* unicodeType = nullptr;
    Layout layout = Layout::None;
    int tsFrame = 0; // PyThreadState: frame (3.9/3.10), cframe (3.11/3.12), current_frame (3.13)
    int cframeCurrent =
        -1; // _PyCFrame.current_frame (3.11: 8, 3.12: 0); -1 when tsFrame is the frame
    int frBack = 0, frCode = 0, frInstr = -1, frOwner = -1, frIsEntry = -1, frLasti = -1;
    bool lastiInUnits = false; // 3.10 f_lasti counts 2-byte code units
    int coFilename = 0, coName = 0, coFirstLine = 0, coCode = 0;
    int asciiSize = 0, compactSize = 0;
    uintptr_t evalStart = 0, evalEnd = 0;
};
Runtime g_rt;
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

// ---- per-thread caches (allocated on the thread's first capture) -------------------------------
constexpr int kCodeSlots = 2048;
constexpr int kLineSlots = 4096;
constexpr int kProbes = 4;
struct CodeSlot {
    const void* code;
    const void* file;
    const void* name;
    int firstLine;
    uint32_t id;
};
struct LineSlot {
    const void* code;
    int32_t lasti;
    int32_t line;
    uint32_t id;
};
struct ThreadCache {
    CodeSlot codes[kCodeSlots];
    LineSlot lines[kLineSlots];
};
thread_local ThreadCache* t_cache = nullptr;
thread_local bool t_cacheFailed = false;

template <typename T> T load(const void* base, int offset) {
    T value;
    memcpy(&value, static_cast<const char*>(base) + offset, sizeof(T));
    return value;
}
const void* pointerAt(const void* base, int offset) {
    return load<const void*>(base, offset);
}

size_t mixPointer(const void* p, int extra = 0) {
    uint64_t h = uint64_t(reinterpret_cast<uintptr_t>(p)) ^ (uint64_t(uint32_t(extra)) << 40);
    h *= 0x9E3779B97F4A7C15ull;
    return size_t(h >> 40);
}

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

// UTF-8 of a str object read from its compact representation; "?" for anything else. NUL-ended.
size_t readUnicode(const void* object, char* out, size_t cap) {
    size_t n = 0;
    if (object && pointerAt(object, kObTypeOffset) == g_rt.unicodeType) {
        uint32_t state = load<uint32_t>(object, kUnicodeStateOffset);
        unsigned kind = (state >> 2) & 7, compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
        int64_t length = load<int64_t>(object, kUnicodeLengthOffset);
        if (compact && length >= 0) {
            const auto* data =
                static_cast<const uint8_t*>(object) + (ascii ? g_rt.asciiSize : g_rt.compactSize);
            for (int64_t i = 0; i < length && n + 1 < cap; ++i) {
                uint32_t c = kind == 1   ? data[i]
                             : kind == 2 ? load<uint16_t>(data, int(i * 2))
                                         : load<uint32_t>(data, int(i * 4));
                putUtf8(c, out, cap, &n);
            }
        }
    }
    if (n == 0)
        out[n++] = '?';
    out[n] = '\0';
    return n;
}

uint32_t newCodeEntry(const void* file, const void* name) {
    char fileText[1024], nameText[256];
    size_t fileLength = readUnicode(file, fileText, sizeof(fileText));
    size_t nameLength = readUnicode(name, nameText, sizeof(nameText));
    uint32_t id = g_codeCount.fetch_add(1, std::memory_order_relaxed);
    if (id >= kMaxCodes)
        return 0;
    uint32_t bytes = uint32_t(fileLength + nameLength + 2);
    uint32_t offset = g_arenaUsed.fetch_add(bytes, std::memory_order_relaxed);
    if (offset + bytes > kArenaBytes) {
        g_codes[id] = {0, 0};
        return id;
    }
    memcpy(g_arena + offset, fileText, fileLength + 1);
    memcpy(g_arena + offset + fileLength + 1, nameText, nameLength + 1);
    g_codes[id] = {offset, uint32_t(offset + fileLength + 1)};
    return id;
}

uint32_t codeId(ThreadCache& cache, const void* code) {
    const void* file = pointerAt(code, g_rt.coFilename);
    const void* name = pointerAt(code, g_rt.coName);
    int firstLine = load<int>(code, g_rt.coFirstLine);
    size_t home = mixPointer(code);
    CodeSlot* target = nullptr;
    for (int probe = 0; probe < kProbes; ++probe) {
        CodeSlot& slot = cache.codes[(home + size_t(probe)) & (kCodeSlots - 1)];
        if (slot.code == code) {
            if (slot.file == file && slot.name == name && slot.firstLine == firstLine)
                return slot.id;
            target = &slot; // same address, another code object: a new entry
            break;
        }
        if (!slot.code) {
            target = &slot;
            break;
        }
    }
    if (!target)
        target = &cache.codes[home & (kCodeSlots - 1)];
    *target = {code, file, name, firstLine, newCodeEntry(file, name)};
    return target->id;
}

int lastiBytes(const void* frame, const void* code) {
    if (g_rt.layout == Layout::FrameObject) {
        int lasti = load<int>(frame, g_rt.frLasti);
        return g_rt.lastiInUnits && lasti > 0 ? lasti * 2 : lasti;
    }
    if (g_rt.frameLasti)
        return g_rt.frameLasti(frame);
    const char* instr = static_cast<const char*>(pointerAt(frame, g_rt.frInstr));
    return int(instr - (static_cast<const char*>(code) + g_rt.coCode));
}

int lineAt(ThreadCache& cache, const void* frame, const void* code, uint32_t id, int lasti) {
    LineSlot& slot = cache.lines[mixPointer(code, lasti) & (kLineSlots - 1)];
    if (slot.code == code && slot.lasti == lasti && slot.id == id)
        return slot.line;
    int line = g_rt.frameLine ? g_rt.frameLine(frame) : g_rt.addr2line(code, lasti);
    slot = {code, lasti, line, id};
    return line;
}

void* symbol(const char* name) {
    return dlsym(RTLD_DEFAULT, name);
}

// 3.13+: the runtime starts with _Py_DebugOffsets (cookie "xdebugpy"). Its sections are found by
// fields whose values never change (PyThreadState prev/next/interp = 0/8/16, frame previous/
// executable = 8/0, co_filename/co_name/co_qualname adjacent), so the optional `size` members
// and `free_threaded` of later patch releases do not matter.
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
    return true;
}

bool setLayout(int minor) {
    Runtime& r = g_rt;
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
        r.coCode = 184;
        return r.addr2line != nullptr;
    case 12:
        r.layout = Layout::InterpreterFrame;
        r.tsFrame = 56;
        r.cframeCurrent = 0;
        r.frCode = 0;
        r.frBack = 8;
        r.frOwner = 70;
        r.coFilename = 112;
        r.coName = 120;
        r.coFirstLine = 68;
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
    if (major != 3 || !g_rt.threadState || !g_rt.codeType || !g_rt.unicodeType ||
        !setLayout(minor)) {
        g_rt.status = "unsupported CPython version or missing symbols (3.9-3.13 supported)";
        return false;
    }
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
    ThreadCache* cache = t_cache;
    if (!cache) {
        if (t_cacheFailed)
            return 0;
        cache = t_cache = static_cast<ThreadCache*>(calloc(1, sizeof(ThreadCache)));
        if (!cache) {
            t_cacheFailed = true;
            return 0;
        }
    }
    const void* tstate = g_rt.threadState();
    if (!tstate)
        return 0; // a thread that never ran Python
    const void* frame = pointerAt(tstate, g_rt.tsFrame);
    if (frame && g_rt.cframeCurrent >= 0)
        frame = pointerAt(frame, g_rt.cframeCurrent);
    int n = 0;
    for (int guard = 0; frame && n < maxFrames && guard < 4096; ++guard) {
        const void* previous = pointerAt(frame, g_rt.frBack);
        if (g_rt.frOwner >= 0 && load<int8_t>(frame, g_rt.frOwner) == kOwnedByCStack) {
            if (n > 0) // the shim of one _PyEval_EvalFrameDefault call: an activation ends here
                out[n - 1] |= uint64_t(1) << 63;
            frame = previous;
            continue;
        }
        const void* code = pointerAt(frame, g_rt.frCode);
        if (!code || pointerAt(code, kObTypeOffset) != g_rt.codeType)
            break; // not a code object: stop rather than guess
        uint32_t id = codeId(*cache, code);
        int lasti = lastiBytes(frame, code);
        int line = lineAt(*cache, frame, code, id, lasti);
        bool end = g_rt.layout == Layout::FrameObject ||
                   (g_rt.frIsEntry >= 0 && load<uint8_t>(frame, g_rt.frIsEntry) != 0);
        out[n++] = pack(id, line < 0 ? 0 : line, end);
        frame = previous;
    }
    return n;
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
