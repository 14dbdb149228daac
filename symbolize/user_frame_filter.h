// UserFrameFilter: decides which frames are the user's code. A sync is attributed to its innermost
// user frame; everything the user cannot edit (CUDA driver/runtime, CUPTI, our recorder, PyTorch's
// dispatch layers, libc, the Python interpreter) is skipped. The lists are documented, with the
// reasons, in docs/symbolization.md — keep the two in step.
//
// Qt-free and LLVM-free: the model can use the same rules when it loads a session.
#pragma once

#include <span>
#include <string_view>

namespace stallscope::symbolize {

// What a native module is, from its path. Only User modules hold user frames.
enum class ModuleClass {
    User,        // anything not matched below: the user's executable and libraries
    CudaRuntime, // libcuda, libcudart, libcupti, CUDA math/comm libraries, libstallscope_recorder
    System,      // glibc, libstdc++, libgcc_s, OpenMP, anything in /lib, /usr/lib (distribution)
    Framework,   // libtorch*, libc10*, ATen/caffe2, anything installed in site-packages
    Interpreter, // the python executable, libpython*
};

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

    static ModuleClass classifyModule(std::string_view modulePath);
    // Native frame: user iff its module is User.
    static bool isUserModule(std::string_view modulePath) {
        return classifyModule(modulePath) == ModuleClass::User;
    }
    // Python frame: user unless the file is part of an installed package or the standard library.
    static bool isUserPythonFile(std::string_view file);

    // `frames` innermost first (stack_frames.position order). Returns the verdict and, for
    // UserFrame, sets *userIndex to the innermost user frame's position.
    static StackVerdict classifyStack(std::span<const FrameFacts> frames, int* userIndex);

    static const char* moduleClassName(ModuleClass moduleClass);
};

} // namespace stallscope::symbolize
