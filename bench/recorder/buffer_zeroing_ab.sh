#!/bin/bash
# Does the recorder still stall the program's threads? Runs a what-if pair's "before" ROUNDS times
# in three ways, interleaved: plain, recorded with CUPTI zeroing its activity buffers on the
# program's threads (STALLSCOPE_EXPERIMENT=zeroing=cupti, the recorder before 2026-11-26), recorded
# with the recorder zeroing them on its writer thread (the default). Writes the loop times to
# $OUT/<pair>.<way>.<round>.json and the sessions beside them; bench/recorder/host_stalls.py
# reads the sessions' long API calls and host gaps.
#   OUT, RECORD (stallscope-record), PAIRS (default gpu_bound_item launch_bound_sync), ROUNDS (3)
set -u
OUT=${OUT:-/tmp/out}
RECORD=${RECORD:-build/dev/recorder/stallscope-record}
PAIRS=${PAIRS:-gpu_bound_item launch_bound_sync}
ROUNDS=${ROUNDS:-3}
export PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
mkdir -p "$OUT"
for pair in $PAIRS; do
    for ((round = 0; round < ROUNDS; round++)); do
        for way in plain cupti recorder; do
            base=$OUT/$pair.$way.$round
            case $way in
            plain) python3 bench/whatif/$pair.py --variant before >"$base.json" 2>"$base.stderr" ;;
            *) rm -f "$base.stallscope"
               env STALLSCOPE_EXPERIMENT=zeroing=$way $RECORD -q -o "$base.stallscope" -- \
                   python3 bench/whatif/$pair.py --variant before >"$base.json" 2>"$base.stderr" ;;
            esac
            echo "[$SECONDS s] $pair $way $round: $(tail -n 1 "$base.json")"
        done
    done
done
