// The word a captured Python frame is stored as: its code id, its line and whether it ends one
// eval-loop activation. Written by the frame walk (python_frame_walk.h), read by PythonFrames'
// users; apart so the walk need not see PythonFrames.
#pragma once

#include <cstdint>

namespace stallscope::recorder {

struct PythonFrameWord {
    // Code id (bits 0-31), line (32-62), bit 63 set on the outermost Python frame of one
    // eval-loop activation (where the native stack has one _PyEval_EvalFrameDefault).
    static uint64_t pack(uint32_t codeId, int line, bool activationEnd) {
        return uint64_t(codeId) | (uint64_t(uint32_t(line) & 0x7fffffffu) << 32) |
               (activationEnd ? (uint64_t(1) << 63) : 0);
    }
    static uint32_t codeIdOf(uint64_t word) { return uint32_t(word); }
    static int lineOf(uint64_t word) { return int((word >> 32) & 0x7fffffffu); }
    static bool endsActivation(uint64_t word) { return (word >> 63) != 0; }
};

} // namespace stallscope::recorder
