#include "symbolize/user_frame_filter.h"

namespace stallscope::symbolize {

StackVerdict UserFrameFilter::classifyStack(std::span<const FrameFacts> frames, int* userIndex) {
    bool sawRuntime = false;
    bool onlyRuntime = true;
    for (size_t i = 0; i < frames.size(); ++i) {
        const FrameFacts& frame = frames[i];
        if (frame.isUser) {
            if (userIndex)
                *userIndex = static_cast<int>(i);
            return StackVerdict::UserFrame;
        }
        // Frames without a module (JIT code, an unmapped PC) neither prove nor refute that the
        // driver issued the sync on its own.
        if (frame.isPython || (frame.hasModule && frame.moduleClass != ModuleClass::CudaRuntime &&
                               frame.moduleClass != ModuleClass::System))
            onlyRuntime = false;
        if (!frame.isPython && frame.hasModule && frame.moduleClass == ModuleClass::CudaRuntime)
            sawRuntime = true;
    }
    return sawRuntime && onlyRuntime ? StackVerdict::DriverInternal : StackVerdict::NoUserFrame;
}
} // namespace stallscope::symbolize
