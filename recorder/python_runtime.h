// PythonRuntime: what PythonFrames::initialize() learned about the CPython in this process — its
// symbols and, per version, where the thread state, frame, code, str and bytes objects keep the
// fields the frame walk reads. One description shared by the two walks: the calling thread's at a
// sync (python_frames.cpp) and the sampler's over other threads (python_sampler.cpp), both through
// the walk in python_frame_walk.h. Internal to the recorder.
#pragma once

#include <cstddef>
#include <cstdint>

namespace stallscope::recorder {

enum class PythonLayout : uint8_t {
    None,
    FrameObject,      // 3.9, 3.10: PyFrameObject chain
    InterpreterFrame, // 3.11+: _PyInterpreterFrame chain
};

struct PythonRuntime {
    using PointerGetter = const void* (*)();
    using PointerOf = const void* (*)(const void*);
    using Addr2Line = int (*)(const void* code, int byteOffset);
    using FrameIntGetter = int (*)(const void* frame);
    using Finalizing = int (*)();

    static constexpr int kObTypeOffset = 8;  // PyObject.ob_type (default, GIL builds)
    static constexpr int kOwnedByCStack = 3; // FRAME_OWNED_BY_CSTACK (3.12, 3.13)
    static constexpr int kUnicodeLengthOffset = 16;
    static constexpr int kUnicodeStateOffset = 32;
    static constexpr int kBytesSizeOffset = 16; // PyBytesObject: ob_size, then ob_shash
    static constexpr int kBytesDataOffset = 32; // ob_sval
    static constexpr int kThreadNextOffset = 8; // PyThreadState.next, 3.9 to 3.13

    bool available = false;
    int minor = 0;
    char version[16] = "";
    const char* status = "not initialized";
    PointerGetter threadState = nullptr;
    Addr2Line addr2line = nullptr;
    FrameIntGetter frameLine = nullptr;      // PyUnstable_InterpreterFrame_GetLine (3.12+)
    FrameIntGetter frameLasti = nullptr;     // PyUnstable_InterpreterFrame_GetLasti (3.12+), bytes
    PointerGetter interpreterHead = nullptr; // PyInterpreterState_Head: a read of _PyRuntime
    PointerOf threadHead = nullptr;          // PyInterpreterState_ThreadHead
    Finalizing finalizing = nullptr;         // _Py_IsFinalizing / Py_IsFinalizing
    const void* codeType = nullptr;
    const void* unicodeType = nullptr;
    const void* bytesType = nullptr;
    PythonLayout layout = PythonLayout::None;
    int tsFrame = 0; // PyThreadState: frame (3.9/3.10), cframe (3.11/3.12), current_frame (3.13)
    // _PyCFrame.current_frame (3.11: 8, 3.12: 0); -1 when tsFrame is the frame
    int cframeCurrent = -1;
    int frBack = 0, frCode = 0, frInstr = -1, frOwner = -1, frIsEntry = -1, frLasti = -1;
    bool lastiInUnits = false; // 3.10 f_lasti counts 2-byte code units
    int coFilename = 0, coName = 0, coFirstLine = 0, coCode = -1, coLinetable = -1;
    int asciiSize = 0, compactSize = 0;
    // The sampler's fields (-1 where this version's are not known: no sampling there).
    int interpThreadsHead = -1; // PyInterpreterState: threads.head
    int tsNativeThreadId = -1;  // PyThreadState: native_thread_id
    // Bytes of a frame, code object and thread state that the walks read (largest offset + 8):
    // what the sampler copies out of another thread's memory per object.
    int frameBytes = 0, codeBytes = 0, threadStateBytes = 0;
    uintptr_t evalStart = 0, evalEnd = 0;
};

// Valid once PythonFrames::initialize() returned true; never changes afterwards.
const PythonRuntime& pythonRuntime();

// The process-wide code table (append only, never freed): the id of a new (file, function)
// entry, 0 when the table is full. Any thread may add; the writer reads by id.
uint32_t addPythonCode(const char* file, size_t fileLength, const char* function,
                       size_t functionLength);

} // namespace stallscope::recorder
