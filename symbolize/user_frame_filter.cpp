#include "symbolize/user_frame_filter.h"

#include <fnmatch.h>

#include <string>

namespace stallscope::symbolize {

namespace {

struct Pattern {
    const char* glob;
    ModuleClass moduleClass;
};

// Matched first, against the file name with its ".so[.N...]" suffix removed ("libcublasLt.so.12" ->
// "libcublasLt"), so a version bump never changes the answer. Order matters: first match wins.
constexpr Pattern kStemPatterns[] = {
    // CUDA driver, runtime and profiling layers: the sync API itself lives here.
    {"libcuda", ModuleClass::CudaRuntime},
    {"libcudart", ModuleClass::CudaRuntime},
    {"libcupti", ModuleClass::CudaRuntime},
    {"libnvidia-*", ModuleClass::CudaRuntime},
    {"libcudadebugger", ModuleClass::CudaRuntime},
    {"libstallscope_recorder", ModuleClass::CudaRuntime},
    {"libnvToolsExt", ModuleClass::CudaRuntime},
    {"libnvrtc*", ModuleClass::CudaRuntime},
    {"libnvJitLink", ModuleClass::CudaRuntime},
    {"libcublas*", ModuleClass::CudaRuntime},
    {"libcudnn*", ModuleClass::CudaRuntime},
    {"libnccl*", ModuleClass::CudaRuntime},
    {"libcufft*", ModuleClass::CudaRuntime},
    {"libcurand", ModuleClass::CudaRuntime},
    {"libcusparse*", ModuleClass::CudaRuntime},
    {"libcusolver*", ModuleClass::CudaRuntime},
    // PyTorch's C++ layers (dispatcher, ATen operators, autograd, CUDA caching allocator).
    {"libtorch*", ModuleClass::Framework},
    {"libc10*", ModuleClass::Framework},
    {"libATen*", ModuleClass::Framework},
    {"libcaffe2*", ModuleClass::Framework},
    {"libshm", ModuleClass::Framework},
    // C/C++ runtime and the dynamic loader.
    {"libc", ModuleClass::System},
    {"libm", ModuleClass::System},
    {"libdl", ModuleClass::System},
    {"libpthread", ModuleClass::System},
    {"librt", ModuleClass::System},
    {"libstdc++", ModuleClass::System},
    {"libc++", ModuleClass::System},
    {"libc++abi", ModuleClass::System},
    {"libgcc_s", ModuleClass::System},
    {"libunwind", ModuleClass::System},
    {"libgomp", ModuleClass::System},
    {"libiomp5", ModuleClass::System},
    {"ld-linux*", ModuleClass::System},
    {"linux-vdso", ModuleClass::System},
    {"[vdso]", ModuleClass::System},
    // The Python interpreter (native frames of the eval loop; Python frames stand for them).
    {"libpython*", ModuleClass::Interpreter},
    {"python", ModuleClass::Interpreter},
    {"python[0-9]*", ModuleClass::Interpreter},
};

// Matched against the whole path when no name above matched. Order matters: first match wins.
constexpr Pattern kPathPatterns[] = {
    // pip's CUDA wheels (nvidia-cublas-cu12, ...): libraries with arbitrary names.
    {"*/site-packages/nvidia/*", ModuleClass::CudaRuntime},
    {"*/dist-packages/nvidia/*", ModuleClass::CudaRuntime},
    // CPython's own extension modules (_ctypes, _sqlite3, math, ...).
    {"*/lib/python[0-9]*/lib-dynload/*", ModuleClass::Interpreter},
    {"*/lib64/python[0-9]*/lib-dynload/*", ModuleClass::Interpreter},
    // Installed packages: torch/_C, triton, numpy's bundled OpenBLAS, ... — the same rule as for
    // Python files, so a package is third-party code whichever language its frames are in.
    {"*/site-packages/*", ModuleClass::Framework},
    {"*/dist-packages/*", ModuleClass::Framework},
    // The distribution's library directories (libcrypto, libz, libffi, ...): not code the user
    // builds. /usr/local/lib stays user code (where `make install` puts their libraries).
    {"/lib/*", ModuleClass::System},
    {"/lib64/*", ModuleClass::System},
    {"/usr/lib/*", ModuleClass::System},
    {"/usr/lib64/*", ModuleClass::System},
};

std::string moduleStem(std::string_view path) {
    const size_t slash = path.find_last_of('/');
    std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    const size_t so = name.find(".so");
    if (so != std::string_view::npos && (so + 3 == name.size() || name[so + 3] == '.'))
        name = name.substr(0, so);
    // auditwheel renames vendored libraries "libcudart-9335f6a2": drop the 8-hex-digit tag.
    if (name.size() > 9 && name[name.size() - 9] == '-' &&
        name.substr(name.size() - 8).find_first_not_of("0123456789abcdef") ==
            std::string_view::npos)
        name = name.substr(0, name.size() - 9);
    return std::string(name);
}

bool globMatches(const char* glob, const std::string& text) {
    return ::fnmatch(glob, text.c_str(), 0) == 0;
}

} // namespace

ModuleClass UserFrameFilter::classifyModule(std::string_view modulePath) {
    // Names first: libcudart bundled inside torch/lib is still the CUDA runtime.
    const std::string stem = moduleStem(modulePath);
    for (const Pattern& pattern : kStemPatterns)
        if (globMatches(pattern.glob, stem))
            return pattern.moduleClass;
    const std::string path(modulePath);
    for (const Pattern& pattern : kPathPatterns)
        if (globMatches(pattern.glob, path))
            return pattern.moduleClass;
    return ModuleClass::User;
}

bool UserFrameFilter::isUserPythonFile(std::string_view file) {
    if (file.empty())
        return false;
    // "<frozen importlib._bootstrap>" is the interpreter's own code; "<stdin>" or "<string>"
    // (exec of user text) stays user code.
    if (file.substr(0, 7) == "<frozen")
        return false;
    const std::string path(file);
    return !globMatches("*/site-packages/*", path) && !globMatches("*/dist-packages/*", path) &&
           !globMatches("*/lib/python[0-9]*/*", path) &&
           !globMatches("*/lib64/python[0-9]*/*", path);
}

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

const char* UserFrameFilter::moduleClassName(ModuleClass moduleClass) {
    switch (moduleClass) {
    case ModuleClass::User:
        return "user";
    case ModuleClass::CudaRuntime:
        return "cuda-runtime";
    case ModuleClass::System:
        return "system";
    case ModuleClass::Framework:
        return "framework";
    case ModuleClass::Interpreter:
        return "interpreter";
    }
    return "user";
}

} // namespace stallscope::symbolize
