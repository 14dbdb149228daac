// StackInterner: the writer-thread side of stacks. Merges a HostEvent's native return addresses and
// Python frames into one stack, interns frames and stacks (storage grows with distinct call sites,
// not with syncs) and writes `frames`, `stacks` and `stack_frames` rows.
//
// Merge rule: the Python frames stand where the interpreter's eval loop stands. Walking the native
// stack innermost first, each _PyEval_EvalFrameDefault frame is replaced by the Python frames of
// one eval-loop activation (PythonFrames marks the outermost frame of each), innermost first; every
// other native frame stays in place. Python frames left over (a native stack cut at its depth
// limit, or eval frames the unwinder could not see) go after the native frames, still in order.
#pragma once

#include "recorder/host_event.h"

#include "format/session_writer.h"

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>

namespace stallscope::recorder {

class StackInterner {
public:
    struct Entry {
        bool python = false;
        uintptr_t pc = 0;  // native
        uint64_t word = 0; // Python: PythonFrames' packed frame word
    };

    StackInterner(format::SessionWriter* writer, std::function<int64_t(uintptr_t)> moduleRowFor);

    // The stack row of an event (-1 when it has none).
    int64_t stackRow(const HostEvent& event);
    int64_t stacksWritten() const { return m_written; }

    // The merge (exposed for tests). Returns the number of entries written to `out` (at most max).
    static int merge(const uintptr_t* pcs, int depth, const uint64_t* python, int pythonDepth,
                     bool (*isEvalLoop)(uintptr_t), Entry* out, int max);

private:
    int64_t nativeFrame(uintptr_t pc);
    int64_t pythonFrame(uint64_t word);

    format::SessionWriter* m_writer;
    std::function<int64_t(uintptr_t)> m_moduleRowFor;
    std::unordered_map<uint64_t, int64_t> m_stacks;
    std::unordered_map<uintptr_t, int64_t> m_nativeFrames;
    std::unordered_map<uint64_t, int64_t> m_pythonWords;     // (code id, line) -> frame row
    std::unordered_map<std::string, int64_t> m_pythonFrames; // "file\0function\0line" -> frame row
    int64_t m_written = 0;
};

} // namespace stallscope::recorder
