#!/usr/bin/env python3
"""Stack capture cost of two recorder builds on one PyTorch workload, interleaved (run on the GPU
machine):  capture_ab.py A_DIR B_DIR [WORKLOAD] [REPS]
A_DIR, B_DIR: each holds stallscope-record and libstallscope_recorder.so; CAPTURE_AB_ENV_A /
CAPTURE_AB_ENV_B: extra environment for that side ("NAME=value,NAME=value"). WORKLOAD: a
bench/recorder/torch_bench.py workload (default mlp). Prints each run's loop time and its meta's
stack capture figures (all, warm, cold), then the medians per side."""
import os
import sqlite3
import statistics
import subprocess
import sys

dirs = sys.argv[1:3]
workload = sys.argv[3] if len(sys.argv) > 3 else "mlp"
reps = int(sys.argv[4]) if len(sys.argv) > 4 else 7
SESSION = "/tmp/capture_ab.stallscope"
KEYS = ["stack_capture_count", "stack_capture_median_ns", "stack_capture_warm_count",
        "stack_capture_warm_median_ns", "stack_capture_cold_count", "stack_capture_cold_median_ns",
        "python_capture_median_ns"]


def extra_env(side):
    text = os.environ.get("CAPTURE_AB_ENV_" + side, "")
    return dict(item.split("=", 1) for item in text.split(",") if item)


rows = {"A": [], "B": []}
for rep in range(reps):
    for side, folder in zip("AB", dirs):
        argv = [folder + "/stallscope-record", "-q", "--no-symbolize", "--force-overwrite", "-o",
                SESSION, "--", "python3", "bench/recorder/torch_bench.py", workload, "plain"]
        p = subprocess.run(argv, capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, **extra_env(side)))
        ms = next((float(line.split()[3]) for line in p.stdout.splitlines()
                   if line.startswith("RESULT")), None)
        meta = dict(sqlite3.connect(SESSION).execute("select key, value from meta"))
        row = [ms] + [int(meta.get(k, -1) or -1) for k in KEYS]
        rows[side].append(row)
        print("RUN", side, rep, " ".join("%s=%s" % kv for kv in zip(["ms"] + KEYS, row)), flush=True)
print("\n| side | loop ms | captures | median ns | warm count | warm median ns | cold count | "
      "cold median ns | python median ns |")
print("|---|---|---|---|---|---|---|---|---|")
for side, folder in zip("AB", dirs):
    cols = list(zip(*rows[side]))
    print("| %s (%s) | %s |" % (side, folder, " | ".join(
        "%.1f" % statistics.median([v for v in c if v is not None and v >= 0]) for c in cols)))
