#include "format/module_class.h"

#include <fnmatch.h>

#include <string>

namespace stallscope::format {

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

bool hasPrefix(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

constexpr std::string_view kLibraryModules[] = {
    // frameworks and their usual companions
    "torch",
    "torchvision",
    "torchaudio",
    "torchtext",
    "functorch",
    "triton",
    "transformers",
    "accelerate",
    "lightning",
    "pytorch_lightning",
    "lightning_fabric",
    "deepspeed",
    "apex",
    "numpy",
    "scipy",
    "cupy",
    "jax",
    "jaxlib",
    "flax",
    "optax",
    "onnx",
    "onnxruntime",
    "timm",
    "peft",
    "safetensors",
    "tokenizers",
    "datasets",
    "huggingface_hub",
    "fairscale",
    "xformers",
    "flash_attn",
    "einops",
    "tqdm",
    "nvidia",
    "pandas",
    "sklearn",
    "tensorboard",
    "wandb",
    "typing_extensions",
    "setuptools",
    "pkg_resources",
    "google",
    "absl",
    // the standard library modules that show up in torch.profiler stacks
    "abc",
    "argparse",
    "ast",
    "asyncio",
    "atexit",
    "base64",
    "bisect",
    "builtins",
    "codecs",
    "collections",
    "concurrent",
    "contextlib",
    "contextvars",
    "copy",
    "copyreg",
    "ctypes",
    "dataclasses",
    "datetime",
    "decimal",
    "dis",
    "distutils",
    "email",
    "enum",
    "fnmatch",
    "fractions",
    "functools",
    "gc",
    "genericpath",
    "gettext",
    "glob",
    "gzip",
    "hashlib",
    "heapq",
    "http",
    "importlib",
    "inspect",
    "io",
    "itertools",
    "json",
    "linecache",
    "locale",
    "logging",
    "math",
    "multiprocessing",
    "numbers",
    "operator",
    "os",
    "pathlib",
    "pickle",
    "pkgutil",
    "platform",
    "posixpath",
    "pprint",
    "queue",
    "random",
    "re",
    "reprlib",
    "runpy",
    "selectors",
    "shutil",
    "signal",
    "site",
    "socket",
    "sre_compile",
    "sre_parse",
    "stat",
    "statistics",
    "string",
    "struct",
    "subprocess",
    "sysconfig",
    "tempfile",
    "textwrap",
    "threading",
    "time",
    "tokenize",
    "traceback",
    "types",
    "typing",
    "unittest",
    "urllib",
    "uuid",
    "warnings",
    "weakref",
    "xml",
    "zipfile",
    "zipimport",
    "_weakrefset",
    "_collections_abc",
    "_compat_pickle",
};

} // namespace

ModuleClass classifyModule(std::string_view modulePath) {
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

const char* moduleClassName(ModuleClass moduleClass) {
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

bool isAboveApiCallModule(std::string_view moduleName) {
    for (std::string_view prefix : {"libstallscope", "libcupti", "libcuda."})
        if (hasPrefix(moduleName, prefix))
            return true;
    return false;
}

bool isSyncEntryModule(std::string_view moduleName) {
    return isAboveApiCallModule(moduleName) || hasPrefix(moduleName, "libcudart");
}

bool isCRuntimeModule(std::string_view moduleName) {
    for (std::string_view prefix : {"libc.so", "libc-", "libpthread", "ld-linux", "libstdc++",
                                    "libgcc_s", "libdl.", "libm.so"})
        if (hasPrefix(moduleName, prefix))
            return true;
    return false;
}

namespace {

bool isInterpreterVersion(std::string_view text) {
    if (text.ends_with(".zip"))
        text.remove_suffix(4);
    else if (text.ends_with('t')) // free-threaded builds: python3.13t
        text.remove_suffix(1);
    return !text.empty() && text.front() >= '0' && text.front() <= '9' &&
           text.find_first_not_of("0123456789.") == std::string_view::npos;
}

// Where an interpreter keeps its own and installed code: the standard library of any prefix
// (/usr, pyenv, conda, a venv's base: lib/python3.12/, lib/python312.zip/), site-packages and
// dist-packages. Returns the position just past the last such folder, npos when none.
size_t pastLibraryFolder(std::string_view file) {
    size_t past = std::string_view::npos;
    auto consider = [&](size_t end) {
        if (past == std::string_view::npos || end > past)
            past = end;
    };
    for (std::string_view folder : {"/site-packages/", "/dist-packages/"})
        for (size_t at = file.find(folder); at != std::string_view::npos;
             at = file.find(folder, at + 1))
            consider(at + folder.size());
    // Only `python` or `pypy` followed by a version (3.12, 3, 3.13t, 312.zip):
    // /home/me/lib/python_tools/ and lib/python3_scripts/ are the user's.
    for (std::string_view folder : {"/lib/python", "/lib64/python", "/lib/pypy"})
        for (size_t at = file.find(folder); at != std::string_view::npos;
             at = file.find(folder, at + 1)) {
            const size_t version = at + folder.size();
            const size_t slash = file.find('/', version);
            if (slash != std::string_view::npos &&
                isInterpreterVersion(file.substr(version, slash - version)))
                consider(slash + 1);
        }
    return past;
}

// Code that Python runs but nobody wrote as a file of the user's: frozen modules
// (<frozen runpy>), exec'd and generated text (<string>: dataclass and namedtuple methods),
// torch.fx graphs (<eval_with_key>.3). What a user types (<stdin>, old IPython cells) stays theirs.
bool isGeneratedPseudoFile(std::string_view file) {
    return file.front() == '<' && file != "<stdin>" && !hasPrefix(file, "<ipython-input-");
}

} // namespace

bool isCudaToolkitHeader(std::string_view file) {
    const size_t slash = file.find_last_of('/');
    const std::string_view name = slash == std::string_view::npos ? file : file.substr(slash + 1);
    for (std::string_view header : {"cuda_runtime.h", "cuda_runtime_api.h", "cuda.h",
                                    "cuda_device_runtime_api.h", "driver_functions.h"})
        if (name == header)
            return true;
    // An include/ folder of a CUDA installation:
    // /usr/local/cuda-13.0/targets/x86_64-linux/include/…, /opt/cuda/include/… (its folder named
    // cuda or cuda-<version>).
    const size_t include = file.rfind("/include/");
    if (include == std::string_view::npos)
        return false;
    std::string_view root = file.substr(0, include);
    if (const size_t targets = root.find("/targets/"); targets != std::string_view::npos)
        root = root.substr(0, targets);
    const std::string_view folder = root.substr(root.find_last_of('/') + 1);
    return folder == "cuda" || (folder.size() > 5 && folder.substr(0, 5) == "cuda-" &&
                                folder[5] >= '0' && folder[5] <= '9');
}

bool isUserPythonFile(std::string_view file) {
    if (file.empty())
        return false;
    if (file.front() == '<')
        return !isGeneratedPseudoFile(file);
    if (file.front() == '/') {
        // TorchInductor writes the code it generates to /tmp/torchinductor_<user>/.
        if (file.find("/torchinductor_") != std::string_view::npos)
            return false;
        return pastLibraryFolder(file) == std::string_view::npos;
    }
    std::string_view top = file.substr(0, file.find('/'));
    if (top.size() > 3 && top.substr(top.size() - 3) == ".py")
        top.remove_suffix(3);
    for (std::string_view library : kLibraryModules)
        if (top == library)
            return false;
    return true;
}

std::string_view libraryFileLabel(std::string_view file) {
    if (file.empty() || file.front() != '/')
        return file; // pseudo files and Kineto's paths, already relative to their sys.path entry
    const size_t past = pastLibraryFolder(file);
    return file.substr(past != std::string_view::npos ? past : file.find_last_of('/') + 1);
}

} // namespace stallscope::format
