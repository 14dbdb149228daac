// PythonFrameName: reads the Python frame names that torch.profiler (Kineto) writes and labels
// Python frames for the UI.
//
// Kineto names a python_function event `path/file.py(N): func`, where N is the line of the
// function's `def` (for `<module>`, the line current when profiling started) — not the line that
// made the call. Frames imported from such names carry `frames.column = kDefLineColumn` so the UI
// can say `file.py · func()` instead of pretending to know the exact line (docs/session-format.md,
// "Python frames from imported traces").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace stallscope::model {

struct FrameInfo;

// frames.column value meaning "line is the function's first line, not the executing line".
inline constexpr int64_t kDefLineColumn = -1;

struct PythonFrameName {
    std::string file;     // empty for built-ins (`<built-in method item of Tensor object>`)
    std::string function; // `train`, `<module>`, or the built-in's description
    int64_t line = 0;     // the def line; 0 for built-ins

    // Parses `file.py(N): func`; anything else becomes a built-in with function = the name
    // minus a trailing ` at 0x...` object address (so one call site interns to one frame).
    static PythonFrameName parse(std::string_view kinetoName);
    // The Kineto spelling again: `file.py(N): func`, or the function alone for built-ins.
    std::string kinetoName() const;
};

// True when the frame's line is a def line (Kineto import), not the executing line.
bool isDefLineFrame(const FrameInfo& frame);
// The source chip text: `train.py · train()` for def-line frames, `train.py:42 · train()` for
// exact lines, the function alone when there is no file.
std::string frameChipLabel(const FrameInfo& frame);

} // namespace stallscope::model
