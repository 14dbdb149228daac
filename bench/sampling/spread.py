#!/usr/bin/env python3
"""Spread of the launch-bound loop's time under the sampler's configurations (issue 16), on a GPU
machine: every value of ROUNDS interleaved rounds, sorted, beside the median, so that a bimodal
configuration shows as one.
  spread.py STALLSCOPE_RECORD [ROUNDS] [WORKLOAD]
Configurations: no recorder; recorder, sampling off; 200 Hz; 1000 Hz waking only
(STALLSCOPE_EXPERIMENT=sampler=tick); 1000 Hz reading only (sampler=walk); 1000 Hz. CONFIGS="no recorder,200 Hz"
limits them; CPUS=0-7 runs every process on those CPUs (taskset), e.g. the GPU's NUMA node's
(nvidia-smi topo -m), which removes a machine's two speed modes from the comparison."""
import os
import re
import statistics
import subprocess
import sys

record = sys.argv[1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 11
workload = sys.argv[3] if len(sys.argv) > 3 else "launch"
session = "/tmp/sampling-spread.stallscope"
rec = [record, "-q", "--no-symbolize", "--force-overwrite", "-o", session]
configs = {
    "no recorder": ([], None),
    "sampling off": (rec + ["--no-sampling", "--"], None),
    "200 Hz": (rec + ["--sample-hz", "200", "--"], None),
    "1000 Hz wake only": (rec + ["--sample-hz", "1000", "--"], "tick"),
    "1000 Hz read only": (rec + ["--sample-hz", "1000", "--"], "walk"),
    "1000 Hz": (rec + ["--sample-hz", "1000", "--"], None),
}
if os.environ.get("CONFIGS"):
    wanted = os.environ["CONFIGS"].split(",")
    configs = {k: v for k, v in configs.items() if k in wanted or k == "sampling off"}
pin = ["taskset", "-c", os.environ["CPUS"]] if os.environ.get("CPUS") else []
print("cpus", os.cpu_count(), "affinity", len(os.sched_getaffinity(0)), "load",
      open("/proc/loadavg").read().strip())
times = {name: [] for name in configs}
for r in range(rounds):
    names = list(configs) if r % 2 == 0 else list(reversed(configs))
    for name in names:
        prefix, ablation = configs[name]
        env = dict(os.environ)
        env.pop("STALLSCOPE_EXPERIMENT", None)
        if ablation:
            env["STALLSCOPE_EXPERIMENT"] = "sampler=" + ablation
        p = subprocess.run(pin + prefix + ["python3", "bench/recorder/torch_bench.py", workload, "plain"],
                           capture_output=True, text=True, env=env)
        m = re.search(r"RESULT \S+ \S+ ([0-9.]+)", p.stdout)
        if m:
            times[name].append(float(m.group(1)))
        else:
            print("FAILED", name, p.returncode, p.stderr[-600:])
base = statistics.median(times["sampling off"])
for name, values in times.items():
    if values:
        med = statistics.median(values)
        print("%-20s median %7.1f ms (%+6.1f %% vs sampling off)  all: %s" % (
            name, med, 100 * (med / base - 1), " ".join("%.1f" % v for v in sorted(values))))
