#!/bin/bash
# One device call's share of the corpus (bench/corpus/README.md): from the repository root on the
# GPU machine, for each pair in PAIRS (default: every pair, in name order) until BUDGET_S seconds
# have passed, ROUNDS rounds of "before" and "after" timed as separate processes, the order
# alternating, with a recording of "before" under the default recorder before each of the first
# RECORDINGS rounds. Writes $OUT/<pair>.rec<K>.stallscope and every run's output in $OUT/raw/
# (<pair>.<variant>.<round>.out: the program's CORPUS line; .err), and names the pairs it did not
# reach, so a later call runs them.
#   RECORD  stallscope-record (default .devcarry/bin/stallscope-record)
#   BIN     the built .cu pairs, <BIN>/<pair>/{before,after} (default .devcarry/corpus)
#   RAW_TAR  a tar that each finished pair's raw/ files are appended to (in a folder that comes
#           back even when the call is cut off)
#   RECORD_ONLY  pairs (space-separated) that are only recorded, RECORDINGS times, not timed:
#           new recordings of pairs whose timings an earlier call has (a recorder change)
set -u
OUT=${OUT:-/tmp/out}
RECORD=${RECORD:-.devcarry/bin/stallscope-record}
BIN=${BIN:-.devcarry/corpus}
ROUNDS=${ROUNDS:-3}
RECORDINGS=${RECORDINGS:-2}
BUDGET_S=${BUDGET_S:-540}
PAIRS=${PAIRS:-$(ls bench/corpus/pairs)}
export PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
mkdir -p "$OUT/raw"

command_of() { # PAIR VARIANT
    if [ -f "bench/corpus/pairs/$1/$2.py" ]; then
        echo "python3 bench/corpus/pairs/$1/$2.py"
    else
        echo "$BIN/$1/$2"
    fi
}

# stallscope-record runs the probe beside it (recorder/recorder_calibration.h): without it the
# sessions lack the recorder's measured cost, which a user's recording has.
if [ ! -x "$(dirname "$RECORD")/stallscope-calibrate" ]; then
    echo "no stallscope-calibrate beside $RECORD (bench/recorder/pack_device.sh packs it)" >&2
    exit 2
fi
nvidia-smi -L
left=""
for pair in $PAIRS; do
    if [ "$SECONDS" -ge "$BUDGET_S" ]; then
        left="$left $pair"
        continue
    fi
    rounds=$ROUNDS
    case " ${RECORD_ONLY:-} " in *" $pair "*) rounds=0 ;; esac
    for ((r = 1; r <= rounds || r <= RECORDINGS; r++)); do
        if [ "$r" -le "$RECORDINGS" ]; then
            session=$OUT/$pair.rec$r.stallscope
            rm -f "$session"
            $RECORD -o "$session" -- $(command_of "$pair" before) \
                >"$OUT/raw/$pair.recorded.$r.out" 2>"$OUT/raw/$pair.recorded.$r.err" ||
                echo "   $pair recording $r FAILED: $(tail -n 1 "$OUT/raw/$pair.recorded.$r.err")"
        fi
        [ "$r" -le "$rounds" ] || continue
        order="before after"
        [ $((r % 2)) = 0 ] && order="after before"
        for variant in $order; do
            $(command_of "$pair" "$variant") >"$OUT/raw/$pair.$variant.$r.out" \
                2>"$OUT/raw/$pair.$variant.$r.err" ||
                echo "   $pair $variant FAILED: $(tail -n 1 "$OUT/raw/$pair.$variant.$r.err")"
        done
    done
    for variant in before after recorded; do
        echo "[$SECONDS s] $pair $variant: $(cat "$OUT"/raw/"$pair".$variant.*.out 2>/dev/null |
            grep -h '^CORPUS' | tr '\n' ' ')"
    done
    # A call cut off at its time limit still brings back every finished pair's timings.
    [ -n "${RAW_TAR:-}" ] && tar -C "$OUT" -rf "$RAW_TAR" $(cd "$OUT" && ls raw/"$pair".*)
done
echo "not run:$left"
