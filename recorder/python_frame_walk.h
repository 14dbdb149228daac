// The CPython frame walk, written once for both of its readers (python_runtime.h has the layout):
//   DirectMemory   the calling thread's own frames at a sync: plain loads. Safe because the thread
//                  is blocked in the recorder's callback, so its frames and code objects stay.
//   CheckedMemory  another thread's frames (the sampler): every read goes through
//                  process_vm_readv on this process, which fails with EFAULT on an address that is
//                  no longer mapped instead of faulting. What it reads may be torn or stale (the
//                  thread runs on); each code object is type-checked before its fields are used
//                  and a failed read or check ends the walk.
// A frame word packs a code id, a line and the activation-end bit (PythonFrameWord::pack).
#pragma once

#include "recorder/python_frame_word.h"
#include "recorder/python_runtime.h"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace stallscope::recorder::python_walk {

struct DirectMemory {
    // Its reads cost nothing: every frame's code object is read and checked again.
    static constexpr uint32_t kTrustTicks = 0;
    class View {
    public:
        explicit View(const void* base) : m_base(static_cast<const char*>(base)) {}
        bool ok() const { return m_base != nullptr; }
        template <typename T> T at(int offset) const {
            T value;
            memcpy(&value, m_base + offset, sizeof(T));
            return value;
        }
        const void* pointer(int offset) const { return at<const void*>(offset); }

    private:
        const char* m_base;
    };
    static View view(const void* address, int) { return View(address); }
    static View frameView(const void* address, int) { return View(address); }
    static bool read(const void* address, void* out, size_t bytes) {
        memcpy(out, address, bytes);
        return true;
    }
};

struct CheckedMemory {
    static constexpr int kViewBytes = 256; // more than any object's part the walk reads
    // A read costs a system call (~1-2 us): a code object checked at most this many ticks ago
    // (half a second at 200 Hz) is taken from the cache by its address, with its line when that
    // is cached too. A code object freed and another made at its address within that time
    // gives a wrong name for those ticks; nothing is read through a cached entry.
    static constexpr uint32_t kTrustTicks = 100;

    class View {
    public:
        bool ok() const { return m_ok; }
        template <typename T> T at(int offset) const {
            T value;
            memcpy(&value, m_bytes + offset, sizeof(T));
            return value;
        }
        const void* pointer(int offset) const { return at<const void*>(offset); }

    private:
        friend struct CheckedMemory;
        char m_bytes[kViewBytes];
        bool m_ok = false;
    };
    static View view(const void* address, int bytes) {
        View view;
        view.m_ok = address && read(address, view.m_bytes, size_t(std::min(bytes, kViewBytes)));
        return view;
    }
    // A frame, through a window of the page it lies on: 3.11+ frames live one above the other on
    // a thread's data stack, so one read of the page below a frame holds most older frames too.
    struct FrameWindow {
        uintptr_t start = 0, end = 0;
        char bytes[4096 + kViewBytes];
    };
    static FrameWindow& window() {
        static thread_local FrameWindow w;
        return w;
    }
    // Before each thread's walk: what the window holds is another moment's.
    static void forgetWindow() { window().start = window().end = 0; }
    static View frameView(const void* address, int bytes) {
        View view;
        const auto at = reinterpret_cast<uintptr_t>(address);
        const size_t size = size_t(std::min(bytes, kViewBytes));
        FrameWindow& w = window();
        if (!(at >= w.start && at + size <= w.end)) {
            const uintptr_t end = at + size;
            const uintptr_t start = std::max(at & ~uintptr_t(4095), end - sizeof(w.bytes));
            w.start = w.end = 0;
            if (!address || !read(reinterpret_cast<const void*>(start), w.bytes, end - start))
                return view; // not ok
            w.start = start;
            w.end = end;
        }
        memcpy(view.m_bytes, w.bytes + (at - w.start), size);
        view.m_ok = true;
        return view;
    }
    // False (nothing read) when any byte of [address, address + bytes) is not readable.
    static bool read(const void* address, void* out, size_t bytes) {
        iovec local{out, bytes};
        iovec remote{const_cast<void*>(address), bytes};
        return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == ssize_t(bytes);
    }
};

// A thread's caches (allocated once per walking thread, never freed): code object -> code id,
// re-validated on every hit (co_filename and co_name pointers, co_firstlineno), so a code object
// freed and another allocated at the same address gets a new entry unless it names the same
// file and function; and (code, instruction offset) -> line.
struct FrameCache {
    static constexpr int kCodeSlots = 2048;
    static constexpr int kLineSlots = 4096;
    static constexpr int kProbes = 4;
    struct CodeSlot {
        const void* code;
        const void* file;
        const void* name;
        int firstLine;
        uint32_t id;
        uint32_t checkedTick; // the walk's tick when the code object was last read and checked
    };
    struct LineSlot {
        const void* code;
        int32_t lasti;
        int32_t line;
        uint32_t id;
    };
    CodeSlot codes[kCodeSlots];
    LineSlot lines[kLineSlots];
    uint32_t tick = 0; // set by the sampler before each pass

    // The slot of `code` when it was checked at most `trustTicks` ticks ago; nullptr otherwise.
    const CodeSlot* recentlyChecked(const void* code, uint32_t trustTicks) const {
        if (trustTicks == 0)
            return nullptr;
        const size_t home = mix(code);
        for (int probe = 0; probe < kProbes; ++probe) {
            const CodeSlot& slot = codes[(home + size_t(probe)) & (kCodeSlots - 1)];
            if (slot.code == code)
                return tick - slot.checkedTick <= trustTicks ? &slot : nullptr;
            if (!slot.code)
                return nullptr;
        }
        return nullptr;
    }

    static size_t mix(const void* p, int extra = 0) {
        uint64_t h = uint64_t(reinterpret_cast<uintptr_t>(p)) ^ (uint64_t(uint32_t(extra)) << 40);
        h *= 0x9E3779B97F4A7C15ull;
        return size_t(h >> 40);
    }
    LineSlot& lineSlot(const void* code, int lasti) {
        return lines[mix(code, lasti) & (kLineSlots - 1)];
    }
};

void putUtf8(uint32_t c, char* out, size_t cap, size_t* n);

// UTF-8 of a str object read from its compact representation; "?" for anything else. NUL-ended.
template <typename Memory> size_t readUnicode(const void* object, char* out, size_t cap) {
    const PythonRuntime& rt = pythonRuntime();
    size_t n = 0;
    const auto header = Memory::view(object, rt.compactSize);
    if (header.ok() && header.pointer(PythonRuntime::kObTypeOffset) == rt.unicodeType) {
        const uint32_t state = header.template at<uint32_t>(PythonRuntime::kUnicodeStateOffset);
        const unsigned kind = (state >> 2) & 7, compact = (state >> 5) & 1,
                       ascii = (state >> 6) & 1;
        const int64_t length = header.template at<int64_t>(PythonRuntime::kUnicodeLengthOffset);
        uint8_t data[4096];
        const size_t count = size_t(std::clamp<int64_t>(length, 0, int64_t(cap - 1)));
        const auto* start =
            static_cast<const char*>(object) + (ascii ? rt.asciiSize : rt.compactSize);
        if (compact && (kind == 1 || kind == 2 || kind == 4) && count * kind <= sizeof(data) &&
            Memory::read(start, data, count * kind)) {
            for (size_t i = 0; i < count && n + 1 < cap; ++i) {
                uint32_t c = data[i];
                if (kind == 2) {
                    uint16_t unit;
                    memcpy(&unit, data + i * 2, 2);
                    c = unit;
                } else if (kind == 4) {
                    memcpy(&c, data + i * 4, 4);
                }
                putUtf8(c, out, cap, &n);
            }
        }
    }
    if (n == 0)
        out[n++] = '?';
    out[n] = '\0';
    return n;
}

// The code id of `code`, whose first bytes `view` holds (already type-checked).
template <typename Memory>
uint32_t codeId(FrameCache& cache, const void* code, const typename Memory::View& view) {
    const PythonRuntime& rt = pythonRuntime();
    const void* file = view.pointer(rt.coFilename);
    const void* name = view.pointer(rt.coName);
    const int firstLine = view.template at<int>(rt.coFirstLine);
    const size_t home = FrameCache::mix(code);
    FrameCache::CodeSlot* target = nullptr;
    for (int probe = 0; probe < FrameCache::kProbes; ++probe) {
        FrameCache::CodeSlot& slot =
            cache.codes[(home + size_t(probe)) & (FrameCache::kCodeSlots - 1)];
        if (slot.code == code) {
            if (slot.file == file && slot.name == name && slot.firstLine == firstLine) {
                slot.checkedTick = cache.tick;
                return slot.id;
            }
            target = &slot; // same address, another code object: a new entry
            break;
        }
        if (!slot.code) {
            target = &slot;
            break;
        }
    }
    if (!target)
        target = &cache.codes[home & (FrameCache::kCodeSlots - 1)];
    char fileText[1024], nameText[256];
    const size_t fileLength = readUnicode<Memory>(file, fileText, sizeof(fileText));
    const size_t nameLength = readUnicode<Memory>(name, nameText, sizeof(nameText));
    *target = {
        code,      file, name, firstLine, addPythonCode(fileText, fileLength, nameText, nameLength),
        cache.tick};
    return target->id;
}

// Walks the frame chain from `frame`, innermost first, into `out` (at most maxFrames words).
// `lineOf(frameView, frame, code, codeView, id)` gives a frame's line (< 0: unknown);
// `cachedLine(frameView, code, id)` the line without the code object, kNotCached when unknown.
inline constexpr int kNotCached = -1000;
template <typename Memory, typename LineOf, typename CachedLine>
int walkFrames(FrameCache& cache, const void* frame, uint64_t* out, int maxFrames, LineOf lineOf,
               CachedLine cachedLine) {
    const PythonRuntime& rt = pythonRuntime();
    int n = 0;
    for (int guard = 0; frame && n < maxFrames && guard < 4096; ++guard) {
        const auto f = Memory::frameView(frame, rt.frameBytes);
        if (!f.ok())
            break;
        const void* previous = f.pointer(rt.frBack);
        if (rt.frOwner >= 0 && f.template at<int8_t>(rt.frOwner) == PythonRuntime::kOwnedByCStack) {
            if (n > 0) // the shim of one _PyEval_EvalFrameDefault call: an activation ends here
                out[n - 1] |= uint64_t(1) << 63;
            frame = previous;
            continue;
        }
        const void* code = f.pointer(rt.frCode);
        uint32_t id = 0;
        int line = kNotCached;
        if (const FrameCache::CodeSlot* known = cache.recentlyChecked(code, Memory::kTrustTicks)) {
            id = known->id;
            line = cachedLine(f, code, id);
        }
        if (line == kNotCached) {
            const auto c = Memory::view(code, rt.codeBytes);
            if (!c.ok() || c.pointer(PythonRuntime::kObTypeOffset) != rt.codeType)
                break; // not a code object: stop rather than guess
            id = codeId<Memory>(cache, code, c);
            line = lineOf(f, frame, code, c, id);
        }
        const bool end = rt.layout == PythonLayout::FrameObject ||
                         (rt.frIsEntry >= 0 && f.template at<uint8_t>(rt.frIsEntry) != 0);
        out[n++] = PythonFrameWord::pack(id, line < 0 ? 0 : line, end);
        frame = previous;
    }
    return n;
}

// The frame of `tstate` (a thread state's view) the walk starts from; nullptr when none.
template <typename Memory> const void* firstFrame(const typename Memory::View& threadState) {
    const PythonRuntime& rt = pythonRuntime();
    const void* frame = threadState.pointer(rt.tsFrame);
    if (frame && rt.cframeCurrent >= 0) {
        const auto cframe = Memory::view(frame, rt.cframeCurrent + 8);
        frame = cframe.ok() ? cframe.pointer(rt.cframeCurrent) : nullptr;
    }
    return frame;
}

} // namespace stallscope::recorder::python_walk
