// Module classification: which native modules and Python files are the user's code, and which
// belong to CUDA, the system, a framework or the interpreter. One set of rules for the finalize
// step (frames.is_user), the Kineto importer, sync-site attribution and the stack views. The lists
// are documented, with the reasons, in docs/symbolization.md — keep the two in step.
//
// Qt-free and LLVM-free: every layer may use it.
#pragma once

#include <string_view>

namespace stallscope::format {

// What a native module is, from its path. Only User modules hold user frames.
enum class ModuleClass {
    User,        // anything not matched below: the user's executable and libraries
    CudaRuntime, // libcuda, libcudart, libcupti, CUDA math/comm libraries, libstallscope_recorder
    System,      // glibc, libstdc++, libgcc_s, OpenMP, anything in /lib, /usr/lib (distribution)
    Framework,   // libtorch*, libc10*, ATen/caffe2, anything installed in site-packages
    Interpreter, // the python executable, libpython*
};

ModuleClass classifyModule(std::string_view modulePath);
const char* moduleClassName(ModuleClass moduleClass); // "user", "cuda-runtime", ...

// The next three take a module's file name without directories ("libcuda.so.1").
// The recorder's callback, CUPTI and the driver: the frames a recorded stack has above the API
// call the program made.
bool isAboveApiCallModule(std::string_view moduleName);
// Those and the CUDA runtime: the frames every sync stack starts with.
bool isSyncEntryModule(std::string_view moduleName);
// The C runtime and loader: what surrounds the driver when it synchronizes on its own (context
// teardown from exit handlers, library constructors).
bool isCRuntimeModule(std::string_view moduleName);

// Whether a Python source file is the user's code. Library code: files under site-packages /
// dist-packages or the interpreter's lib folder of any prefix (lib/python3.X/, lib/python3X.zip/,
// lib/pypy3.X/: /usr, pyenv, conda, venvs), TorchInductor's generated files
// (/tmp/torchinductor_<user>/), and generated pseudo files (<frozen ...>, <string>,
// <eval_with_key>.N) — but not <stdin> or IPython cells. Kineto writes paths relative to their
// sys.path entry (`torch/nn/modules/module.py`, `typing.py`), so a relative path whose
// top-level package or module is a well-known framework or standard-library one is not user code.
bool isUserPythonFile(std::string_view file);

// A CUDA toolkit header (cuda_runtime.h's inline templates such as cudaMemcpyToSymbol<T>, the
// runtime API headers, anything under a CUDA installation's include/ folder): code compiled into
// the user's binary, but not the user's line (issue 39: two sites read "cudaMemcpyToSymbol<float
// [64]>" in cuda_runtime.h instead of the call in main.cu).
bool isCudaToolkitHeader(std::string_view file);

// A library file named from its package folder: the path after the last site-packages/,
// dist-packages/ or lib/pythonX.Y/ ("lightning_fabric/utilities/apply_func.py"); pseudo and
// relative paths as they are; any other absolute path by its file name.
std::string_view libraryFileLabel(std::string_view file);

} // namespace stallscope::format
