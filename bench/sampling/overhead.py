#!/usr/bin/env python3
"""Overhead of the Python sampler (issue 16, item 4), run on a GPU machine:
  overhead.py STALLSCOPE_RECORD [ROUNDS]
Times a launch-bound and a GPU-bound PyTorch loop (bench/recorder/torch_bench.py: `launch`, `mlp`)
under stallscope-record with sampling off, at 200 Hz and at 1000 Hz, ROUNDS (>= 7) rounds with the
configurations interleaved so drift hits all alike; prints a markdown table of medians (the timed
loop inside the process: start-up and CUPTI init excluded), the overhead of each rate against
sampling off, and the sampler's own cost per tick from the session's meta. ABLATIONS=1 adds the
sampler waking at 1000 Hz without reading, and reading without publishing (STALLSCOPE_EXPERIMENT=sampler=tick|walk).
WORKLOADS=launch limits the workloads."""
import os
import re
import sqlite3
import statistics
import subprocess
import sys

record, rounds = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 7
session = "/tmp/sampling-bench.stallscope"
workloads = {
    "launch-bound PyTorch (2000 x [4 tiny ops + synchronize])": "launch",
    "GPU-bound PyTorch MLP training (bf16, 4 x 4096, batch 8192, 30 steps)": "mlp",
}
if os.environ.get("WORKLOADS"):
    workloads = {k: v for k, v in workloads.items() if v in os.environ["WORKLOADS"].split(",")}
rates = {"sampling off": ["--no-sampling"], "200 Hz": ["--sample-hz", "200"],
         "1000 Hz": ["--sample-hz", "1000"]}
# Ablations (ABLATIONS=1): the sampler thread waking at 1000 Hz and reading nothing, or reading
# every stack and publishing nothing (STALLSCOPE_EXPERIMENT=sampler=..., recorder_experiments.h).
ablations = {"1000 Hz, wake only": "tick", "1000 Hz, read only": "walk"}
if os.environ.get("ABLATIONS") == "1":
    rates.update({name: ["--sample-hz", "1000"] for name in ablations})
times, ticks = {}, {}
for _ in range(rounds):
    for name, workload in workloads.items():
        for rate, flags in rates.items():
            argv = [record, "-q", "--no-symbolize", "--force-overwrite", "-o", session, *flags, "--",
                    "python3", "bench/recorder/torch_bench.py", workload, "plain"]
            env = dict(os.environ)
            env.pop("STALLSCOPE_EXPERIMENT", None)
            if rate in ablations:
                env["STALLSCOPE_EXPERIMENT"] = "sampler=" + ablations[rate]
            p = subprocess.run(argv, capture_output=True, text=True, env=env)
            m = re.search(r"RESULT \S+ \S+ ([0-9.]+)", p.stdout)
            if not m:
                print("FAILED", name, rate, p.returncode, p.stdout[-400:], p.stderr[-1200:])
                continue
            times.setdefault((name, rate), []).append(float(m.group(1)))
            meta = dict(sqlite3.connect(session).execute("select key, value from meta"))
            if rate != "sampling off":
                samples = sqlite3.connect(session).execute(
                    "select coalesce(sum(samples), 0) from host_samples").fetchone()[0]
                ticks.setdefault((name, rate), []).append(
                    (int(meta.get("sampler_tick_mean_ns", 0)), int(meta.get("sampler_ticks", 0)),
                     samples, meta.get("sampling")))
print("| workload | configuration | median ms (%d rounds) | vs sampling off | sampler tick mean | "
      "ticks | samples |" % rounds)
print("|---|---|---|---|---|---|---|")
for name in workloads:
    base = statistics.median(times.get((name, "sampling off"), [float("nan")]))
    for rate in rates:
        values = times.get((name, rate), [])
        if not values:
            continue
        median = statistics.median(values)
        extra = ticks.get((name, rate))
        tick = ("%.1f us" % (statistics.median(t[0] for t in extra) / 1e3)) if extra else "-"
        count = str(int(statistics.median(t[1] for t in extra))) if extra else "-"
        samples = str(int(statistics.median(t[2] for t in extra))) if extra else "-"
        print("| %s | %s | %.1f | %+.2f %% | %s | %s | %s |" % (
            name, rate, median, 100 * (median / base - 1), tick, count, samples))
        if extra and extra[0][3] != "on":
            print("| | sampling status: %s | | | | | |" % extra[0][3])
