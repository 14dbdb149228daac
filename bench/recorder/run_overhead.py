#!/usr/bin/env python3
"""Recorder overhead benchmark (run on the GPU machine). Runs every configuration REPS times,
interleaved so drift hits all alike, and prints a markdown table of medians.
  run_overhead.py CARRY_DIR [REPS]
Configurations: uninstrumented / stallscope-record / torch.profiler (CPU+CUDA activities, PyTorch
workloads only). Times are the timed loop inside the process (startup and CUPTI init excluded)."""
import re
import sqlite3
import statistics
import subprocess
import sys

carry = sys.argv[1]
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
record = [carry + "/stallscope-record", "-q", "-o", "/tmp/bench.stallscope", "--"]
workloads = {
    "launch-bound C++ (2000 x [4 tiny kernels + stream sync])": (
        [carry + "/launch_bound", "2000", "4"], r"ms=([0-9.]+)", False),
    "launch-bound PyTorch (2000 x [4 tiny ops + synchronize])": (
        ["python3", "bench/recorder/torch_bench.py", "launch", "{mode}"], r"RESULT \S+ \S+ ([0-9.]+)", True),
    "GEMM-heavy PyTorch MLP training (bf16, 4 x 4096, batch 8192, 30 steps)": (
        ["python3", "bench/recorder/torch_bench.py", "mlp", "{mode}"], r"RESULT \S+ \S+ ([0-9.]+)", True),
}
results = {}
captures = {}
for rep in range(reps):
    for name, (cmd, pattern, has_profiler) in workloads.items():
        modes = ["plain", "stallscope"] + (["profiler"] if has_profiler else [])
        for mode in modes:
            argv = [a.replace("{mode}", "profiler" if mode == "profiler" else "plain") for a in cmd]
            if mode == "stallscope":
                argv = record + argv
            p = subprocess.run(argv, capture_output=True, text=True)
            m = re.search(pattern, p.stdout)
            if not m:
                print("FAILED", name, mode, p.returncode, p.stdout[-500:], p.stderr[-1500:])
                continue
            results.setdefault((name, mode), []).append(float(m.group(1)))
            if mode == "stallscope":
                meta = dict(sqlite3.connect("/tmp/bench.stallscope").execute("select key, value from meta"))
                captures.setdefault(name, []).append(
                    (int(meta.get("stack_capture_median_ns", 0)), int(meta.get("stack_capture_count", 0)),
                     int(meta.get("dropped_records", 0)), int(meta.get("dropped_host_events", 0))))
    print("rep", rep + 1, "done", flush=True)

print()
print("| workload | uninstrumented ms | stallscope-record ms (overhead) | torch.profiler ms (overhead) | stack capture median ns (captures/run) | dropped |")
print("|---|---|---|---|---|---|")
for name, (_, _, has_profiler) in workloads.items():
    base = statistics.median(results.get((name, "plain"), [float("nan")]))
    cells = []
    for mode in ["stallscope", "profiler"]:
        values = results.get((name, mode))
        if not values:
            cells.append("—")
            continue
        med = statistics.median(values)
        cells.append("%.1f (%+.1f %%)" % (med, 100 * (med - base) / base))
    cap = captures.get(name, [(0, 0, 0, 0)])
    cap_med = statistics.median(c[0] for c in cap)
    cap_n = statistics.median(c[1] for c in cap)
    dropped = max(c[2] + c[3] for c in cap)
    print("| %s | %.1f | %s | %s | %d (%d) | %d |" % (name, base, cells[0], cells[1], cap_med, cap_n, dropped))
print()
print("raw:", {"%s/%s" % k: v for k, v in results.items()})
