#include "model/session/python_frame_name.h"

#include "model/session/session_database.h"

namespace stallscope::model {

namespace {

std::string_view stripObjectAddress(std::string_view name) {
    // `<built-in method item of Tensor object at 0x7f8487832b20>`: the address differs per
    // object, the call site does not.
    const size_t at = name.rfind(" at 0x");
    if (at == std::string_view::npos || name.empty() || name.back() != '>')
        return name;
    for (size_t i = at + 6; i + 1 < name.size(); ++i) {
        const char c = name[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return name;
    }
    return name.substr(0, at);
}

std::string baseName(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
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

bool isUserPythonFile(std::string_view file) {
    if (file.empty())
        return false;
    if (file.front() == '<') // <frozen importlib._bootstrap>; exec'd user text (<string>) stays
        return file == "<string>" || file == "<stdin>";
    if (file.front() == '/') {
        for (std::string_view marker :
             {"/site-packages/", "/dist-packages/", "/lib/python", "/lib64/python"})
            if (file.find(marker) != std::string_view::npos)
                return false;
        return true;
    }
    std::string_view top = file.substr(0, file.find('/'));
    if (top.size() > 3 && top.substr(top.size() - 3) == ".py")
        top.remove_suffix(3);
    for (std::string_view library : kLibraryModules)
        if (top == library)
            return false;
    return true;
}

PythonFrameName PythonFrameName::parse(std::string_view name) {
    PythonFrameName frame;
    // `file(N): func` — find "): " after a run of digits preceded by '('.
    const size_t close = name.find("): ");
    if (close != std::string_view::npos && close > 0) {
        const size_t open = name.rfind('(', close);
        if (open != std::string_view::npos && open > 0 && open + 1 < close) {
            int64_t line = 0;
            bool digits = true;
            for (size_t i = open + 1; i < close; ++i) {
                const char c = name[i];
                if (c < '0' || c > '9') {
                    digits = false;
                    break;
                }
                line = line * 10 + (c - '0');
            }
            if (digits) {
                frame.file.assign(name.substr(0, open));
                frame.line = line;
                frame.function.assign(name.substr(close + 3));
                return frame;
            }
        }
    }
    const std::string_view stripped = stripObjectAddress(name);
    frame.function.assign(stripped.empty() ? name : stripped);
    if (stripped.size() < name.size())
        frame.function.push_back('>');
    return frame;
}

std::string PythonFrameName::kinetoName() const {
    if (file.empty())
        return function;
    return file + "(" + std::to_string(line) + "): " + function;
}

bool isDefLineFrame(const FrameInfo& frame) {
    return frame.kind == format::FrameKind::Python && frame.column == kDefLineColumn;
}

std::string frameChipLabel(const FrameInfo& frame) {
    std::string function = frame.function;
    if (frame.kind == format::FrameKind::Python && !function.empty() && function.front() != '<')
        function += "()";
    if (frame.file.empty())
        return function;
    std::string label = baseName(frame.file);
    if (!isDefLineFrame(frame) && frame.line > 0)
        label += ":" + std::to_string(frame.line);
    return function.empty() ? label : label + " · " + function;
}

} // namespace stallscope::model
