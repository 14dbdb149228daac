#!/usr/bin/env python3
"""Recorder overhead, side by side, in one device call (run on the GPU machine):
  ablation.py CARRY_DIR [REPS]        (ABLATION_PARTS=cxx,launch,gemm,mlp picks parts; default all;
                                       ABLATION_ONLY=text,text keeps the configurations whose label
                                       contains one of them, and the uninstrumented run)
Every configuration runs REPS times, all interleaved so drift hits all alike; medians printed.
CARRY_DIR: stallscope-record, libstallscope_recorder.so, launch_bound, and libcupti_floor.so
(cupti_floor.cpp: CUPTI alone, without Stallscope).
Part 1 (launch-bound C++, 2000 x [4 tiny kernels + stream sync]): which recorder component costs what.
Part 2 (PyTorch): uninstrumented / stallscope-record (default and variants) / torch.profiler on the
launch-bound loop and the GEMM-heavy MLP (bench/recorder/torch_bench.py)."""
import glob
import os
import re
import sqlite3
import statistics
import subprocess
import sys

carry = sys.argv[1]
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
SESSION = "/tmp/ablation.stallscope"
# --no-symbolize: the symbolizer runs after the program, outside every timed loop; it only costs
# the call time.
record = [carry + "/stallscope-record", "-q", "--no-symbolize", "--force-overwrite", "-o", SESSION]
cxx = [carry + "/launch_bound", "2000", "4"]
# Nsight Systems as the GPU machines have it (it runs the target but writes no report there: the
# target's own loop time is what counts). A configuration whose args are NSYS runs under it.
NSYS = "nsys"
NSYS_BINARY = next(iter(sorted(glob.glob("/opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys"))),
                   None)
nsys = [NSYS_BINARY or "nsys", "profile", "-t", "cuda,nvtx", "-o", "/tmp/ablation-nsys",
        "--force-overwrite", "true"]


def instrumented(args, target):
    """The command line of a configuration: uninstrumented (args None), under nsys, or recorded."""
    if args is None:
        return target
    if args == NSYS:
        return nsys + target
    return record + args + ["--"] + target


# CUPTI alone, without Stallscope (bench/recorder/cupti_floor.cpp, built into CARRY_DIR): the
# price of its kernel tracing that no recorder built on it can take away.
FLOOR = {"CUDA_INJECTION64_PATH": os.path.join(carry, "libcupti_floor.so")}
CXX_CONFIGS = [  # label, env, extra stallscope-record args (None: uninstrumented)
    ("uninstrumented", {}, None),
    ("CUPTI alone: subscribed, nothing enabled", dict(FLOOR, CUPTI_FLOOR="subscribe"), None),
    ("CUPTI alone: kernel records", dict(FLOOR, CUPTI_FLOOR="kernel"), None),
    ("CUPTI alone: kernel records + API records of launches and syncs",
     dict(FLOOR, CUPTI_FLOOR="kernel+api"), None),
    ("CUPTI alone: kernel records + callbacks timing launches and syncs",
     dict(FLOOR, CUPTI_FLOOR="kernel+callbacks"), None),
    ("default (offset clock, writer flush)", {}, []),
    ("clock: CUPTI timestamp callback", {"STALLSCOPE_EXPERIMENT": "clock=callback"}, []),
    ("clock: CUPTI's, unconverted", {"STALLSCOPE_EXPERIMENT": "clock=cupti"}, []),
    ("flush: cuptiActivityFlushPeriod", {"STALLSCOPE_EXPERIMENT": "flush=cupti"}, []),
    ("no DRIVER API records", {}, ["--kinds", "-driver"]),
    ("with SYNCHRONIZATION records (the default before 2026-11-26)", {},
     ["--kinds", "all,sync-records"]),
    ("no syncs at all", {}, ["--kinds", "-sync"]),
    ("no API records at all", {}, ["--kinds", "-runtime,-driver"]),
    ("no API callbacks (no stacks)", {"STALLSCOPE_EXPERIMENT": "callbacks=off"}, []),
    ("no stacks (callbacks kept)", {}, ["--no-stacks"]),
    ("no GPU power sampler", {"STALLSCOPE_GPU_POWER_HZ": "0"}, []),
    ("kernels + syncs with stacks", {}, ["--kinds", "kernel,sync"]),
    ("kernels, copies, syncs with stacks", {}, ["--kinds", "kernel,memcpy,memset,sync"]),
    ("buffer 32M", {}, ["--buffer-size", "32M"]),
    ("buffer 1M", {}, ["--buffer-size", "1M"]),
    ("kernels only", {}, ["--kinds", "kernel"]),
    ("stallscope-record --mode light", {}, ["--mode", "light"]),
    ("CUPTI zeroes its buffers", {"STALLSCOPE_EXPERIMENT": "zeroing=cupti"}, []),
    ("nsys profile -t cuda,nvtx", {}, NSYS),
]
TORCH = ["python3", "bench/recorder/torch_bench.py"]
TORCH_CONFIGS = [
    ("uninstrumented", {}, None, "plain"),
    ("stallscope-record (default)", {}, [], "plain"),
    ("stallscope, clock callback", {"STALLSCOPE_EXPERIMENT": "clock=callback"}, [], "plain"),
    ("stallscope, Python frames off", {"STALLSCOPE_PYTHON": "0"}, [], "plain"),
    ("stallscope, no stacks", {}, ["--no-stacks"], "plain"),
    ("stallscope, FDE index off (libgcc's lookup)", {"STALLSCOPE_EXPERIMENT": "fde-index=off"}, [], "plain"),
    ("stallscope, no DRIVER API records", {}, ["--kinds", "-driver"], "plain"),
    ("stallscope, no API records at all", {}, ["--kinds", "-runtime,-driver"], "plain"),
    ("stallscope, with SYNCHRONIZATION records (the default before 2026-11-26)", {},
     ["--kinds", "all,sync-records"], "plain"),
    ("stallscope, no syncs at all", {}, ["--kinds", "-sync"], "plain"),
    ("stallscope, kernels only", {}, ["--kinds", "kernel"], "plain"),
    ("stallscope-record --mode light", {}, ["--mode", "light"], "plain"),
    ("stallscope, CUPTI zeroes its buffers", {"STALLSCOPE_EXPERIMENT": "zeroing=cupti"}, [], "plain"),
    ("torch.profiler", {}, None, "profiler"),
    ("nsys profile -t cuda,nvtx", {}, NSYS, "plain"),
]
MLP_CONFIGS = [c for c in TORCH_CONFIGS if c[0] in (
    "uninstrumented", "stallscope-record (default)", "torch.profiler", "nsys profile -t cuda,nvtx",
    "stallscope-record --mode light", "stallscope, FDE index off (libgcc's lookup)",
    "stallscope, with SYNCHRONIZATION records (the default before 2026-11-26)")]


# One run may take this long (nsys on the GPU machines once ran past a 9-minute call without a
# result: a run that hangs must not take the other configurations' results with it).
RUN_TIMEOUT_S = float(os.environ.get("ABLATION_RUN_TIMEOUT", "90"))


def run(argv, env, pattern):
    try:
        p = subprocess.run(argv, capture_output=True, text=True, env=dict(os.environ, **env),
                           timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        print("TIMEOUT after %g s:" % RUN_TIMEOUT_S, argv[:4], flush=True)
        return None
    m = re.search(pattern, p.stdout)
    if not m:
        print("FAILED", argv, p.returncode, p.stdout[-300:], p.stderr[-800:], flush=True)
        return None
    return float(m.group(1))


def meta():
    try:
        return dict(sqlite3.connect(SESSION).execute("select key, value from meta"))
    except Exception:
        return {}


PARTS = os.environ.get("ABLATION_PARTS", "cxx,launch,gemm,mlp").split(",")
ONLY = [text for text in os.environ.get("ABLATION_ONLY", "").split(",") if text]
if ONLY:
    def kept(configs):
        return [c for c in configs if c[0] == "uninstrumented" or any(t in c[0] for t in ONLY)]
    CXX_CONFIGS, TORCH_CONFIGS, MLP_CONFIGS = kept(CXX_CONFIGS), kept(TORCH_CONFIGS), kept(MLP_CONFIGS)
results, metas = {}, {}
for rep in range(reps):
    for label, env, args in CXX_CONFIGS if "cxx" in PARTS else []:
        argv = instrumented(args, cxx)
        v = run(argv, env, r"ms=([0-9.]+)")
        print("RUN cxx | %s | %s" % (label, v), flush=True)
        if v is not None:
            results.setdefault(("cxx", label), []).append(v)
            if args not in (None, NSYS):
                metas.setdefault(("cxx", label), []).append(meta())
    for workload, configs in (("launch", TORCH_CONFIGS), ("gemm", TORCH_CONFIGS),
                              ("mlp", MLP_CONFIGS)):
        if workload not in PARTS:
            continue
        for label, env, args, mode in configs:
            base = TORCH + [workload, mode]
            argv = instrumented(args, base)
            v = run(argv, env, r"RESULT \S+ \S+ ([0-9.]+)")
            print("RUN %s | %s | %s" % (workload, label, v), flush=True)
            if v is not None:
                results.setdefault((workload, label), []).append(v)
                if args not in (None, NSYS):
                    metas.setdefault((workload, label), []).append(meta())
    print("rep", rep + 1, "done", flush=True)


def table(workload, configs, title):
    base = statistics.median(results.get((workload, "uninstrumented"), [float("nan")]))
    print("\n### " + title)
    print("| configuration | median ms | overhead | runs (ms) | python capture median ns | "
          "stack capture median ns | stack capture p90 ns | captures | warm: count, median ns | "
          "cold: count, median ns | dropped |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for c in configs:
        label = c[0]
        values = results.get((workload, label), [])
        if not values:
            print("| %s | — | — | — | | | | | | | |" % label)
            continue
        med = statistics.median(values)
        ms = metas.get((workload, label), [])
        py = [int(m.get("python_capture_median_ns", 0)) for m in ms if m.get("python_capture_median_ns")]
        st = [int(m.get("stack_capture_median_ns", 0)) for m in ms if m.get("stack_capture_median_ns")]
        p90 = [int(m.get("stack_capture_p90_ns", 0)) for m in ms if m.get("stack_capture_p90_ns")]
        count = [int(m.get("stack_capture_count", 0)) for m in ms if m.get("stack_capture_count")]

        def split(kind):  # captures whose every unwind rule was cached (warm), or not (cold)
            n = [int(m["stack_capture_%s_count" % kind]) for m in ms
                 if m.get("stack_capture_%s_count" % kind)]
            ns = [int(m["stack_capture_%s_median_ns" % kind]) for m in ms
                  if int(m.get("stack_capture_%s_count" % kind, 0) or 0) > 0]
            return "%s, %s" % (statistics.median(n) if n else "—",
                               statistics.median(ns) if ns else "—")
        dropped = max([int(m.get("dropped_records", 0)) + int(m.get("dropped_host_events", 0)) for m in ms] or [0])
        print("| %s | %.1f | %+.1f %% | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            label, med, 100 * (med - base) / base, " ".join("%.1f" % v for v in values),
            statistics.median(py) if py else "—", statistics.median(st) if st else "—",
            statistics.median(p90) if p90 else "—", statistics.median(count) if count else "—",
            split("warm"), split("cold"), dropped if ms else "—"))
        indexed = sorted({m.get("fde_index") for m in ms if m.get("fde_index")})
        if indexed:
            print("|  | FDE index: %s | | | | | | | | | |" % "; ".join(indexed))


if "cxx" in PARTS:
    table("cxx", CXX_CONFIGS, "launch-bound C++ (2000 x [4 tiny kernels + stream sync])")
if "launch" in PARTS:
    table("launch", TORCH_CONFIGS, "launch-bound PyTorch (2000 x [4 tiny ops + synchronize])")
if "gemm" in PARTS:
    table("gemm", TORCH_CONFIGS, "launch-bound PyTorch, issue 19 (1000 x [512x512 fp16 GEMM, relu, "
          "scale + synchronize])")
if "mlp" in PARTS:
    table("mlp", MLP_CONFIGS, "GEMM-heavy PyTorch MLP training (bf16, 4 x 4096, batch 8192, 30 steps)")
m = metas.get(("cxx", "default (offset clock, writer flush)"), [{}])[-1]
print("\nCUPTI clock vs host clocks (host minus cuptiGetTimestamp, ns):", m.get("cupti_clock_vs_host"))
