// UserFrameFilter: decides which frames are the user's code. A sync is attributed to its innermost
// user frame; everything the user cannot edit (CUDA driver/runtime, CUPTI, our recorder, PyTorch's
// dispatch layers, libc, the Python interpreter) is skipped. The lists are documented, with the
// reasons, in docs/symbolization.md. The module and Python-file rules live in
// format/module_class.h, shared with the model and the views.
#pragma once

#include "format/module_class.h"

#include <span>
#include <string_view>

namespace stallscope::symbolize {

using format::ModuleClass;

// A sync's stack, classified.
enum class StackVerdict {
    UserFrame,      // has a user frame: userFrameIndex() names the innermost
    DriverInternal, // only CUDA runtime/driver and system frames: shown as `<driver-internal>`
    NoUserFrame,    // framework/interpreter frames but no user frame (e.g. Python capture missing)
};

class UserFrameFilter {
public:
    // What the stack view needs to know about one frame of a stack.
    struct FrameFacts {
        bool isPython = false;
        bool isUser = false;
        ModuleClass moduleClass = ModuleClass::User; // native frames only
        bool hasModule = false;                      // native frame with a known module
    };

    // Native frame: user iff its module is User (format/module_class.h has the rules, and the
    // rule for Python files).
    static bool isUserModule(std::string_view modulePath) {
        return format::classifyModule(modulePath) == ModuleClass::User;
    }

    // `frames` innermost first (stack_frames.position order). Returns the verdict and, for
    // UserFrame, sets *userIndex to the innermost user frame's position.
    static StackVerdict classifyStack(std::span<const FrameFacts> frames, int* userIndex);
};

} // namespace stallscope::symbolize
