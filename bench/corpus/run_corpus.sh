#!/bin/bash
# Times and records the corpus's before/after pairs on the GPU machine (bench/corpus/README.md).
#
#   OUT=/tmp/corpus RECORD=.devcarry/bin/stallscope-record CORPUS_BIN=build/corpus \
#       bash bench/corpus/run_corpus.sh
#
# Runs from the repository root (it changes into it). For each pair, in manifest order:
#   * ROUNDS rounds of separate-process timing: round r runs before then after (r even) or
#     after then before (r odd), each as its own process;
#   * RECORDINGS recordings of "before" under the recorder, spread between those rounds:
#     recording k (1..RECORDINGS) runs just before round floor(k * ROUNDS / (RECORDINGS + 1)),
#     into $OUT/<name>.rec<k>.stallscope;
#   * one in-process alternating run (bench/corpus/alternate.py, ROUNDS rounds of each variant
#     in one Python process; "n/a" for C++ pairs).
# Every program's stdout/stderr goes to $OUT/raw/<name>.*; at the end bench/corpus/collect.py
# writes $OUT/timings.json from $OUT/raw.
#
# Environment:
#   OUT         output folder (required)
#   RECORD      stallscope-record (default build/dev/recorder/stallscope-record)
#   CORPUS_BIN  folder built by bench/corpus/build.sh (default build/corpus)
#   PAIRS       pairs to run, in this order (default: all, manifest order)
#   ROUNDS      timing rounds per pair (default 5)    RECORDINGS  recordings per pair (default 2)
#   BUDGET_S    a pair is started only if it is expected to end within BUDGET_S seconds of this
#               script's start (default 540); the pairs left out are printed and written to
#               $OUT/not_run.txt, to be run by a later call with PAIRS="..."
#   STEP_ARGS   extra arguments for every program, e.g. "--steps 20" for a smoke test
#   RECORD_ARGS extra arguments for stallscope-record (before -o)
#   RUN_TIMEOUT seconds after which one program run is killed (default 240)
#   PYTHON      default python3
#   TAR         if set, a .tar.gz of $OUT is written there at the end (the device tool brings
#               back at most 8 files)
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 1
OUT=${OUT:?set OUT to the output folder}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
RECORD=${RECORD:-build/dev/recorder/stallscope-record}
CORPUS_BIN=${CORPUS_BIN:-build/corpus}
ROUNDS=${ROUNDS:-5}
RECORDINGS=${RECORDINGS:-2}
BUDGET_S=${BUDGET_S:-540}
STEP_ARGS=${STEP_ARGS:-}
RECORD_ARGS=${RECORD_ARGS:-}
RUN_TIMEOUT=${RUN_TIMEOUT:-240}
PYTHON=${PYTHON:-python3}
MANIFEST=bench/corpus/manifest.json
RAW=$OUT/raw
mkdir -p "$RAW"
export PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
PAIRS=${PAIRS:-$($PYTHON -c 'import json, sys; print(" ".join(p["name"] for p in json.load(open(sys.argv[1]))))' "$MANIFEST")}

is_python() { [ -f "bench/corpus/pairs/$1/before.py" ]; }

# The command line of one variant of a pair.
pair_command() { # NAME VARIANT
    if is_python "$1"; then
        echo "$PYTHON bench/corpus/pairs/$1/$2.py $STEP_ARGS"
    else
        echo "$CORPUS_BIN/$1/$2 $STEP_ARGS"
    fi
}

# Expected seconds for one pair before any was timed: separate runs, recordings, in-process run.
default_estimate() { # NAME
    if is_python "$1"; then
        echo $((2 * ROUNDS * 9 + RECORDINGS * 18 + 5 + 2 * ROUNDS * 7 / 2))
    else
        echo $((2 * ROUNDS * 3 + RECORDINGS * 6))
    fi
}
LONGEST_PY=0
LONGEST_CU=0
estimate() { # NAME
    local e
    e=$(default_estimate "$1")
    if is_python "$1"; then
        [ "$LONGEST_PY" -gt "$e" ] && e=$LONGEST_PY
    else
        [ "$LONGEST_CU" -gt "$e" ] && e=$LONGEST_CU
    fi
    echo "$e"
}

run_timed() { # NAME VARIANT ROUND
    local base="$RAW/$1.sep.r$3.$2"
    timeout -k 10 "$RUN_TIMEOUT" $(pair_command "$1" "$2") >"$base.out" 2>"$base.err"
    local rc=$?
    echo "$rc" >"$base.rc"
    echo "   [$SECONDS s] $1 round $3 $2: rc $rc $(grep '^CORPUS ' "$base.out" | tail -n 1)"
}

record() { # NAME K
    local session="$OUT/$1.rec$2.stallscope" base="$RAW/$1.rec$2"
    rm -f "$session"
    timeout -k 10 $((2 * RUN_TIMEOUT)) "$RECORD" $RECORD_ARGS -o "$session" -- $(pair_command "$1" before) \
        >"$base.out" 2>"$base.err"
    local rc=$?
    echo "$rc" >"$base.rc"
    echo "   [$SECONDS s] $1 recording $2: rc $rc, $( [ -f "$session" ] && du -h "$session" | cut -f1 || echo 'no session'),"\
         "$(grep '^CORPUS ' "$base.out" | tail -n 1)"
}

in_process() { # NAME
    timeout -k 10 $((2 * ROUNDS * RUN_TIMEOUT)) $PYTHON bench/corpus/alternate.py --pair "$1" --rounds "$ROUNDS" \
        --raw "$RAW" -- $STEP_ARGS >"$RAW/$1.inproc.log" 2>"$RAW/$1.inproc.err"
    local rc=$? loops
    loops=$(grep -c '"ok": true' "$RAW/$1.inproc.jsonl" 2>/dev/null)
    echo "   [$SECONDS s] $1 in-process: rc $rc (${loops:-0} timed loops)"
}

{
    date -u +"started %Y-%m-%dT%H:%M:%SZ"
    nvidia-smi -L 2>&1
    $PYTHON -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1
    echo "ROUNDS=$ROUNDS RECORDINGS=$RECORDINGS STEP_ARGS=$STEP_ARGS RECORD=$RECORD"
} >>"$OUT/env.txt"
cat "$OUT/env.txt"

NOT_RUN=()
for name in $PAIRS; do
    if [ ! -d "bench/corpus/pairs/$name" ]; then
        echo "== $name: no such pair" >&2
        continue
    fi
    expected=$(estimate "$name")
    if [ $((SECONDS + expected)) -gt "$BUDGET_S" ]; then
        NOT_RUN+=("$name")
        continue
    fi
    echo "== $name (expected ~${expected} s)"
    started=$SECONDS
    next_recording=1
    for ((r = 0; r < ROUNDS; r++)); do
        while [ "$next_recording" -le "$RECORDINGS" ] &&
              [ "$r" -ge $((next_recording * ROUNDS / (RECORDINGS + 1))) ]; do
            record "$name" "$next_recording"
            next_recording=$((next_recording + 1))
        done
        if [ $((r % 2)) -eq 0 ]; then
            run_timed "$name" before "$r"; run_timed "$name" after "$r"
        else
            run_timed "$name" after "$r"; run_timed "$name" before "$r"
        fi
    done
    while [ "$next_recording" -le "$RECORDINGS" ]; do
        record "$name" "$next_recording"
        next_recording=$((next_recording + 1))
    done
    in_process "$name"
    took=$((SECONDS - started))
    printf '{"pair": "%s", "seconds": %d, "rounds": %d, "recordings": %d, "step_args": "%s"}\n' \
        "$name" "$took" "$ROUNDS" "$RECORDINGS" "$STEP_ARGS" >"$RAW/$name.meta.json"
    if is_python "$name"; then
        [ "$took" -gt "$LONGEST_PY" ] && LONGEST_PY=$took
    else
        [ "$took" -gt "$LONGEST_CU" ] && LONGEST_CU=$took
    fi
    echo "   $name took $took s"
done

$PYTHON bench/corpus/collect.py "$RAW" "$OUT/timings.json"
if [ "${#NOT_RUN[@]}" -gt 0 ]; then
    echo "NOT RUN (budget of $BUDGET_S s): ${NOT_RUN[*]}"
    echo "next call: PAIRS=\"${NOT_RUN[*]}\""
    echo "${NOT_RUN[*]}" >"$OUT/not_run.txt"
else
    echo "all requested pairs were run"
    rm -f "$OUT/not_run.txt"
fi
if [ -n "${TAR:-}" ]; then
    tar -C "$OUT" -czf "$TAR" . && echo "packed $OUT into $TAR ($(du -h "$TAR" | cut -f1))"
fi
echo "[$SECONDS s] done: $OUT/timings.json"
