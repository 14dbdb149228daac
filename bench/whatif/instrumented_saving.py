#!/usr/bin/env python3
"""How much of a sync's saving is CUPTI's own (issue 12), on the GPU machine:
  instrumented_saving.py CARRY_DIR [ROUNDS]
The cuda_stream_sync pair (before and after alternating in one process) timed plain and under
CUPTI's kernel records alone (bench/recorder/cupti_floor.cpp), interleaved. CARRY_DIR holds
cuda_stream_sync and libcupti_floor.so. A recording shows the saving of the instrumented run; the
difference between the two medians is what CUPTI adds to each restart of an idle stream."""
import json
import os
import statistics
import subprocess
import sys

carry = sys.argv[1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
floor_lib = os.path.join(carry, "libcupti_floor.so")


def floor(mode):
    return {"CUDA_INJECTION64_PATH": floor_lib, "CUPTI_FLOOR": mode}


def run(argv, env):
    p = subprocess.run(argv, capture_output=True, text=True, env=dict(os.environ, **env),
                       timeout=120)
    return p.stdout, p.stderr


def summary(label, values):
    if not values:
        return "%-24s no result" % label
    return "%-24s median %8.3f  range %8.3f .. %8.3f  (n=%d)" % (
        label, statistics.median(values), min(values), max(values), len(values))


# cuda_stream_sync --variant both alternates before/after in one process: the saving per sync
# is (before - after) / iterations, measured plain and with CUPTI's kernel records on.
savings = {"plain": [], "CUPTI kernel records": []}
for r in range(rounds):
    for label, env in (("plain", {}), ("CUPTI kernel records", floor("kernel"))):
        out, _ = run([carry + "/cuda_stream_sync", "--variant", "both", "--rounds", "3",
                        "--iters", "3000"], env)
        loops = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        for round_no in sorted({loop.get("round") for loop in loops}):
            pair = {loop["variant"]: loop for loop in loops if loop.get("round") == round_no}
            if "before" in pair and "after" in pair:
                per_sync = (pair["before"]["loop_s"] - pair["after"]["loop_s"]) / \
                    pair["before"]["iterations"] * 1e6
                savings[label].append(per_sync)
                print("pair round %d/%s %-22s saving per sync %.2f us" % (
                    r, round_no, label, per_sync), flush=True)
print("\ncuda_stream_sync pair, measured saving per sync (us):")
for label, values in savings.items():
    print(summary(label, values))
