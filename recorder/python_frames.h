// PythonFrames: the calling thread's CPython stack (file, function, exact line), read at a sync
// callback WITHOUT the GIL.
//
// Why without the GIL: PyTorch releases it around .item()/synchronize (gpu-facts:
// PyGILState_Check() was 0 in 208/208 sync callbacks), and taking it inside a CUDA API call can
// deadlock against the driver lock. Reading the *calling* thread's own frame chain is safe: the
// thread is blocked in our callback, so its frames (and the code objects they hold strong
// references to) stay alive and unchanged while we read them. Nothing here calls a Python API that
// allocates, locks, or touches a reference count (PyUnstable_InterpreterFrame_GetCode is avoided on
// purpose: it increfs, a data race without the GIL).
//
// How, per version (symbols found with dlsym(RTLD_DEFAULT): libpython or an executable that links
// the interpreter in, as the GPU machine's python3 does; libpython is never linked):
//   thread state  PyGILState_GetThisThreadState() (thread-specific storage: valid without the GIL;
//                 _PyThreadState_UncheckedGet is the GIL *holder*, NULL or another thread's here)
//   3.9/3.10      tstate->frame: PyFrameObject chain (f_back, f_code, f_lasti); one eval-loop C
//   frame
//                 per Python frame
//   3.11          tstate->cframe->current_frame: _PyInterpreterFrame chain (previous, f_code,
//                 prev_instr); `is_entry` ends each eval-loop activation
//   3.12          same via cframe; FRAME_OWNED_BY_CSTACK shim frames separate activations; line and
//                 lasti from the exported PyUnstable_InterpreterFrame_GetLine/GetLasti (pure reads)
//   3.13          tstate->current_frame; offsets read from the runtime's _Py_DebugOffsets
//   lines         PyCode_Addr2Line(code, byte offset) where no frame function exists (a pure read
//   of
//                 the immutable line table), cached per thread by (code, instruction offset)
// Every frame's code object is type-checked against PyCode_Type before use; a mismatch ends the
// walk.
//
// Strings (co_filename/co_name): read the first time a thread sees a code object, straight from the
// compact unicode object's data (ASCII, UCS1/2/4 encoded to UTF-8 here; no PyUnicode_AsUTF8, which
// may allocate), into a process-wide append-only table that the writer thread reads by id. The
// per-thread cache that maps code pointer -> id re-validates every hit (co_filename and co_name
// pointers, co_firstlineno): a code object freed and another allocated at the same address gets a
// new entry unless it names the same file and function, when the old entry is still right. The
// table and the caches never free anything, so the writer may read an id at any later time.
#pragma once

#include "recorder/python_frame_word.h"

#include <cstdint>

namespace stallscope::recorder {

// The frames it captures are PythonFrameWord words (pack, codeIdOf, lineOf, endsActivation).
class PythonFrames : public PythonFrameWord {
public:
    struct CodeInfo {
        const char* file = "";
        const char* function = "";
    };

    // Finds CPython in this process. Idempotent; call it off the hot path (recorder start).
    static bool initialize();
    static bool available();
    // "3.12" or "" when no interpreter; `status()` says why capture is off.
    static const char* version();
    static const char* status();

    // Hot path: the calling thread's Python frames, innermost first. 0 when the thread runs no
    // Python. Allocates only on a thread's first call (its caches).
    static int capture(uint64_t* out, int maxFrames);
    // Writer side: file and function of a code id seen in a published event.
    static CodeInfo codeInfo(uint32_t codeId);
    // Whether a native return address lies in the interpreter's eval loop.
    static bool isEvalLoopPc(uintptr_t pc);
};

} // namespace stallscope::recorder
