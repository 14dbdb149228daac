#!/bin/bash
# What capture control costs outside the captured range (issue 43: at most 1 % on the launch-bound
# loop). Runs bench/recorder/launch_bound (each iteration an NVTX range "step") ROUNDS times in each
# way, the ways interleaved within a round so that drift hits all alike, and prints each way's
# median loop time and its overhead against the plain run:
#   plain     launch_bound alone (its NVTX calls go nowhere)
#   closed    stallscope-record --capture-range nvtx:never: the NVTX callbacks watch every step
#             for a range that never opens; nothing else is on
#   profiler  stallscope-record --capture-range cuda-profiler-api: a range the program never
#             opens, with no callback on its path at all
#   delayed   stallscope-record --delay 100000: a delay that never ends, no trigger callback at
#             all: what CUPTI's presence alone costs
#   full      stallscope-record recording everything (for scale)
# The loop's time is launch_bound's own (after its warm-up: the start-up and CUPTI's
# initialization are left out). Run on the GPU machine from the repository root:
#   bench/recorder/capture_overhead.sh
# Settings (environment): RECORD (stallscope-record; default build/cap/recorder/stallscope-record),
# LAUNCH_BOUND (built with nvcc into OUT when unset), OUT (/tmp/capture-overhead), ROUNDS (7, at
# least 5), ITERATIONS (20000), PER_SYNC (4), WAYS (plain closed profiler full).
set -euo pipefail
RECORD=${RECORD:-build/cap/recorder/stallscope-record}
OUT=${OUT:-/tmp/capture-overhead}
ROUNDS=${ROUNDS:-7}
ITERATIONS=${ITERATIONS:-20000}
PER_SYNC=${PER_SYNC:-4}
WAYS=${WAYS:-plain closed profiler full}
if ((ROUNDS < 5)); then
    echo "capture_overhead.sh: ROUNDS=$ROUNDS: a median wants at least 5" >&2
    exit 2
fi
mkdir -p "$OUT"
for way in $WAYS; do rm -f "$OUT/$way.ms"; done
if [ -z "${LAUNCH_BOUND:-}" ]; then
    LAUNCH_BOUND=$OUT/launch_bound
    NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
    "$NVCC" -O2 -arch=native bench/recorder/launch_bound.cu -o "$LAUNCH_BOUND" -ldl
fi
program=("$LAUNCH_BOUND" "$ITERATIONS" "$PER_SYNC" nvtx)
record=("$RECORD" -q --no-calibration --no-symbolize --force-overwrite)

# One run of `way`: prints the loop's ms.
run() {
    local way=$1 round=$2 line
    local session=$OUT/$way.$round.stallscope
    case $way in
    plain) line=$("${program[@]}") ;;
    closed) line=$("${record[@]}" --capture-range nvtx:never -o "$session" -- "${program[@]}") ;;
    profiler)
        line=$("${record[@]}" --capture-range cuda-profiler-api -o "$session" -- "${program[@]}")
        ;;
    delayed) line=$("${record[@]}" --delay 100000 -o "$session" -- "${program[@]}") ;;
    full) line=$("${record[@]}" -o "$session" -- "${program[@]}") ;;
    *)
        echo "capture_overhead.sh: unknown way '$way'" >&2
        exit 2
        ;;
    esac
    sed -n 's/.* ms=\([0-9.]*\) .*/\1/p' <<<"$line"
}

for ((round = 0; round < ROUNDS; round++)); do
    for way in $WAYS; do
        ms=$(run "$way" "$round")
        echo "$ms" >>"$OUT/$way.ms"
        echo "round $((round + 1))/$ROUNDS $way: $ms ms"
    done
done

median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
plain=$(median "$OUT/plain.ms")
echo
echo "launch_bound $ITERATIONS x [$PER_SYNC kernels + sync] in an NVTX range, median of $ROUNDS ($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1))"
echo "| way | median ms | overhead |"
echo "|---|---|---|"
for way in $WAYS; do
    m=$(median "$OUT/$way.ms")
    awk -v w="$way" -v m="$m" -v p="$plain" 'BEGIN { printf "| %s | %.2f | %+.2f %% |\n", w, m, 100 * (m - p) / p }'
done
echo "raw loop times: $OUT/<way>.ms"
