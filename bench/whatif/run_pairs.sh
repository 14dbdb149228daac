#!/bin/bash
# Runs the what-if pairs on the GPU machine, from the repository root: for each pair, RECORDINGS
# times: one process that times "before" and "after" alternately, ROUNDS loops each (--variant
# both: round r runs before first when r is even), then one recording of "before" under
# stallscope-record. Alternating the two keeps the measured rounds and the recordings in the same
# stretch of time: on these machines a host-bound loop runs at two speeds for seconds at a time.
# Writes $OUT/timings.json (collect_timings.py) and $OUT/<pair>.stallscope (the first recording;
# the others are <pair>.rec<N>.stallscope).
#   OUT        output folder (default /tmp/out)
#   RECORD     stallscope-record (default build/dev/recorder/stallscope-record)
#   PAIRS_BIN  folder with the built cuda_stream_sync (default build/whatif; see build.sh)
#   PAIRS      pairs to run (default all five), ROUNDS (default 7: rounds before each recording),
#              RECORDINGS (default 1)
#   PAIR_ARGS  extra arguments for every run, e.g. "--iters 20 --warmup 2" for a smoke test
#   RECORD_AFTER=1  also record "after" into $OUT/<pair>.after.stallscope (for stallscope --compare)
#   RECORD_LIGHT=1  also record "before" with --mode light into $OUT/<pair>.light.stallscope
#   RECORD_ENV  extra environment for the recordings, e.g. "STALLSCOPE_EXPERIMENT=zeroing=cupti"
#   SAME_PROCESS=1  no separate timing processes: each recording, after its loop, ends the
#               recording and times ROUNDS rounds of both variants in the same process
#               (--rounds-after-recording): the saving of the very process, and speed, that was
#               recorded.
#   SMI=1       also sample the GPU's SM clock, power, utilization and clock-event reasons every
#               100 ms into $OUT/smi.csv (bench/whatif/smi_by_loop.py lines them up with the loops)
set -u
OUT=${OUT:-/tmp/out}
RECORD=${RECORD:-build/dev/recorder/stallscope-record}
PAIRS_BIN=${PAIRS_BIN:-build/whatif}
PAIRS=${PAIRS:-gpu_bound_item launch_bound_sync pageable_copy host_overlap_item cuda_stream_sync}
ROUNDS=${ROUNDS:-7}
RECORDINGS=${RECORDINGS:-1}
RECORD_ENV=${RECORD_ENV:-}
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

run_both() { # PAIR RAW_NAME
    local base=$RAW/$2
    $(pair_command "$1" both) --rounds "$ROUNDS" >"$base.json" 2>"$base.stderr" ||
        echo "   FAILED (rc $?): $base.stderr"
    echo "   [$SECONDS s] $1: $(grep -c '^{' "$base.json") timed loops"
}

# Whether the recordings time the rounds themselves (SAME_PROCESS=1).
same_process() { [ "${SAME_PROCESS:-0}" = 1 ]; }

record() { # PAIR VARIANT OUTPUT RAW_NAME
    local rounds_after=""
    if same_process && [ "$2" = before ] && [ "$4" != "$1.light.recorded" ]; then
        rounds_after="--rounds-after-recording $ROUNDS"
    fi
    rm -f "$3"
    env $RECORD_ENV $RECORD -o "$3" -- $(pair_command "$1" "$2") $rounds_after \
        >"$RAW/$4.json" 2>"$RAW/$4.stderr" || echo "   recording FAILED (rc $?)"
    tail -n 2 "$RAW/$4.stderr"
    echo "   [$SECONDS s] $1 $2 recorded: $(grep -m 1 '^{' "$RAW/$4.json")"
    [ -z "$rounds_after" ] ||
        echo "   $(grep -c '"after_recording"' "$RAW/$4.json") timed loops after it"
}

nvidia-smi -L
if [ "${SMI:-0}" = 1 ]; then
    nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,utilization.gpu,temperature.gpu,clocks_event_reasons.active \
        --format=csv,noheader -lms 100 >"$OUT/smi.csv" &
    SMI_PID=$!
    trap 'kill $SMI_PID' EXIT
fi
for pair in $PAIRS; do
    echo "== $pair"
    same_process || run_both "$pair" "$pair.both"
    record "$pair" before "$OUT/$pair.stallscope" "$pair.recorded"
    for ((n = 1; n < RECORDINGS; n++)); do
        same_process || run_both "$pair" "$pair.both.$n"
        record "$pair" before "$OUT/$pair.rec$n.stallscope" "$pair.recorded.$n"
    done
    if [ "${RECORD_LIGHT:-0}" = 1 ]; then
        RECORD="$RECORD --mode light" record "$pair" before "$OUT/$pair.light.stallscope" \
            "$pair.light.recorded"
    fi
    if [ "${RECORD_AFTER:-0}" = 1 ]; then
        record "$pair" after "$OUT/$pair.after.stallscope" "$pair.after.recorded"
    fi
done
python3 bench/whatif/collect_timings.py "$RAW" "$OUT/timings.json" --rounds "$ROUNDS" $PAIRS
echo "[$SECONDS s] done: $OUT/timings.json"
