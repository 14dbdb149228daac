#!/bin/bash
# Runs the what-if pairs on the GPU machine, from the repository root: for each pair, ROUNDS
# interleaved rounds of "before" and "after" (round r runs before then after when r is even, after
# then before when odd), then one recording of "before" under stallscope-record; writes
# $OUT/timings.json (collect_timings.py) and $OUT/<pair>.stallscope.
#   OUT        output folder (default /tmp/out)
#   RECORD     stallscope-record (default build/dev/recorder/stallscope-record)
#   PAIRS_BIN  folder with the built cuda_stream_sync (default build/whatif; see build.sh)
#   PAIRS      pairs to run (default all five), ROUNDS (default 5)
#   PAIR_ARGS  extra arguments for every run, e.g. "--iters 20 --warmup 2" for a smoke test
#   RECORD_AFTER=1  also record "after" into $OUT/<pair>.after.stallscope (for stallscope --compare)
set -u
OUT=${OUT:-/tmp/out}
RECORD=${RECORD:-build/dev/recorder/stallscope-record}
PAIRS_BIN=${PAIRS_BIN:-build/whatif}
PAIRS=${PAIRS:-gpu_bound_item launch_bound_sync pageable_copy host_overlap_item cuda_stream_sync}
ROUNDS=${ROUNDS:-5}
PAIR_ARGS=${PAIR_ARGS:-}
RAW=$OUT/raw
export PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
mkdir -p "$RAW"

# A pair's program is bench/whatif/<pair>.py, or the built <pair> binary for the .cu pair.
pair_command() { # PAIR VARIANT
    if [ -f "bench/whatif/$1.py" ]; then
        echo "python3 bench/whatif/$1.py --variant $2 $PAIR_ARGS"
    else
        echo "$PAIRS_BIN/$1 --variant $2 $PAIR_ARGS"
    fi
}

run_variant() { # PAIR VARIANT ROUND
    local base=$RAW/$1.$2.$3
    $(pair_command "$1" "$2") >"$base.json" 2>"$base.stderr" || echo "   FAILED (rc $?): $base.stderr"
    echo "   [$SECONDS s] $1 $2 round $3: $(tail -n 1 "$base.json")"
}

nvidia-smi -L
for pair in $PAIRS; do
    echo "== $pair"
    for ((round = 0; round < ROUNDS; round++)); do
        if ((round % 2 == 0)); then order="before after"; else order="after before"; fi
        for variant in $order; do run_variant "$pair" "$variant" "$round"; done
    done
    rm -f "$OUT/$pair.stallscope"
    $RECORD -o "$OUT/$pair.stallscope" -- $(pair_command "$pair" before) \
        >"$RAW/$pair.recorded.json" 2>"$RAW/$pair.recorded.stderr" || echo "   recording FAILED (rc $?)"
    tail -n 2 "$RAW/$pair.recorded.stderr"
    echo "   [$SECONDS s] $pair recorded: $(tail -n 1 "$RAW/$pair.recorded.json")"
    if [ "${RECORD_AFTER:-0}" = 1 ]; then
        rm -f "$OUT/$pair.after.stallscope"
        $RECORD -o "$OUT/$pair.after.stallscope" -- $(pair_command "$pair" after) \
            >"$RAW/$pair.after.recorded.json" 2>"$RAW/$pair.after.recorded.stderr" ||
            echo "   recording of after FAILED (rc $?)"
        echo "   [$SECONDS s] $pair after recorded: $(tail -n 1 "$RAW/$pair.after.recorded.json")"
    fi
done
python3 bench/whatif/collect_timings.py "$RAW" "$OUT/timings.json" --rounds "$ROUNDS" $PAIRS
echo "[$SECONDS s] done: $OUT/timings.json"
