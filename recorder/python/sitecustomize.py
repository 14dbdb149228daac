"""Loaded by Python in programs that stallscope-record runs (it puts this folder first on
PYTHONPATH). CUPTI takes one client per process: while the recorder holds it, a torch.profiler
started with ProfilerActivity.CUDA records CPU ops but no GPU activity, and PyTorch only says
"CUPTI initialization failed". This says so once, in plain words, then runs the sitecustomize
this file shadows. It changes nothing else and never raises into the program.
"""
import importlib.abc
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_NOTICE = (
    "stallscope: torch.profiler was started with CUDA activities while stallscope-record owns "
    "CUPTI in this process (one client at a time): torch.profiler gets CPU ops but no kernels, "
    "copies or CUDA calls; the Stallscope session is unaffected. Run them one at a time to get "
    "both."
)
_told = False


def _recorder_owns_cupti():
    """True when the recorder library is loaded in this process and recording: asked through its
    C entry point, never loading the library (RTLD_NOLOAD) if CUDA has not done so."""
    path = os.environ.get("CUDA_INJECTION64_PATH")
    if not path:
        return False
    try:
        import ctypes

        library = ctypes.CDLL(path, mode=getattr(os, "RTLD_NOLOAD", 4) | ctypes.RTLD_LOCAL)
        return bool(library.stallscope_recording())
    except (OSError, AttributeError):
        return False


def _wraps_cuda(profile):
    names = {getattr(a, "name", str(a)) for a in (getattr(profile, "activities", None) or ())}
    return any("CUDA" in name for name in names)


def _patch(module):
    # prepare_trace is where Kineto asks for CUPTI, whether the profile runs on a schedule
    # (profile.start -> its action map) or not (_KinetoProfile.start).
    base = getattr(module, "_KinetoProfile", None)
    prepare = getattr(base, "prepare_trace", None)
    if prepare is None or getattr(prepare, "_stallscope", False):
        return

    def prepare_and_tell(self, *args, **kwargs):
        global _told
        try:
            if not _told and _wraps_cuda(self) and _recorder_owns_cupti():
                _told = True
                sys.stderr.write(_NOTICE + "\n")
        except Exception:  # never break the user's profiler
            pass
        return prepare(self, *args, **kwargs)

    prepare_and_tell._stallscope = True
    base.prepare_trace = prepare_and_tell


class _ProfilerModuleFinder(importlib.abc.MetaPathFinder):
    """Patches torch.profiler.profiler right after it is imported (if it ever is)."""

    target = "torch.profiler.profiler"

    def find_spec(self, fullname, path, target=None):
        if fullname != self.target:
            return None
        sys.meta_path.remove(self)  # let the real finders find it, once
        try:
            import importlib.util

            spec = importlib.util.find_spec(fullname)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader

        class Loader(importlib.abc.Loader):
            def create_module(self, spec):
                return loader.create_module(spec)

            def exec_module(self, module):
                loader.exec_module(module)
                try:
                    _patch(module)
                except Exception:
                    pass

        spec.loader = Loader()
        return spec


def _run_shadowed_sitecustomize():
    """The sitecustomize a later sys.path entry provides (a distribution's, a virtualenv's)."""
    here = sys.modules.pop("sitecustomize", None)
    saved = sys.path[:]
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
    try:
        import importlib

        importlib.import_module("sitecustomize")
    except ImportError as err:
        if err.name != "sitecustomize":  # its own failing import: as Python would report it
            raise
    finally:
        sys.path[:] = saved
        if here is not None:
            sys.modules["sitecustomize"] = here


if "torch.profiler.profiler" in sys.modules:
    _patch(sys.modules["torch.profiler.profiler"])
else:
    sys.meta_path.insert(0, _ProfilerModuleFinder())
_run_shadowed_sitecustomize()
