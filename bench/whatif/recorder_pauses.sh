#!/bin/bash
# How a recording's host pauses compare with a plain run's, on a pair's "before" loop (issue 12: the
# replay starts from the recording, so every pause the recorder adds while the GPU idles shows up
# as predicted saving). Per round, interleaved: the loop plain, then recorded under each
# configuration. Every run's JSON line (with its iteration_spread, pair_harness.py) goes to
# $OUT/<pair>.pauses.jsonl with its "config" and "round"; recordings are
# $OUT/<pair>.<config>.<round>.stallscope, and bench/recorder/host_stalls.py's table of them is
# $OUT/<pair>.stalls.md. Run from the repository root on the GPU machine:
#   OUT=$OUT RECORD=.devcarry/bin/stallscope-record PAIRS="gpu_bound_item" ROUNDS=3 \
#     bash bench/whatif/recorder_pauses.sh
# CONFIGS: "label=stallscope-record arguments" entries separated by ';' (an argument of the form
# VAR=value is put in the environment instead); "plain" runs the loop without the recorder.
set -u
OUT=${OUT:-/tmp/out}
RECORD=${RECORD:-build/dev/recorder/stallscope-record}
PAIRS=${PAIRS:-gpu_bound_item}
ROUNDS=${ROUNDS:-3}
PAIR_ARGS=${PAIR_ARGS:-}
CONFIGS=${CONFIGS:-"plain=;default=;flush-1000ms=--flush-ms 1000;cupti-flush=STALLSCOPE_EXPERIMENT=flush=cupti"}
export PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
mkdir -p "$OUT"

run_config() { # PAIR ROUND LABEL ARGS...
    local pair=$1 round=$2 label=$3
    shift 3
    local command="python3 bench/whatif/$pair.py --variant before $PAIR_ARGS"
    local session=$OUT/$pair.$label.$round.stallscope
    local envs=() args=()
    for word in "$@"; do
        if [[ $word == *=* && $word != --* ]]; then envs+=("$word"); else args+=("$word"); fi
    done
    local line
    if [ "$label" = plain ]; then
        line=$($command 2>/dev/null | grep '^{' | tail -n 1)
    else
        rm -f "$session"
        line=$(env "${envs[@]}" "$RECORD" -q --force-overwrite -o "$session" "${args[@]}" -- \
            $command 2>"$OUT/$pair.$label.$round.stderr" | grep '^{' | tail -n 1)
    fi
    [ -n "$line" ] || line='{"failed": true}'
    echo "${line%\}}, \"config\": \"$label\", \"round\": $round}" >>"$OUT/$pair.pauses.jsonl"
    echo "   [$SECONDS s] $pair $label round $round: $line"
}

nvidia-smi -L
IFS=';' read -r -a config_list <<<"$CONFIGS"
for pair in $PAIRS; do
    rm -f "$OUT/$pair.pauses.jsonl"
    for ((round = 0; round < ROUNDS; round++)); do
        for entry in "${config_list[@]}"; do
            # shellcheck disable=SC2086 # the configuration's arguments split on spaces
            run_config "$pair" "$round" "${entry%%=*}" ${entry#*=}
        done
    done
    python3 bench/recorder/host_stalls.py "$OUT/$pair".*.stallscope >"$OUT/$pair.stalls.md"
    cat "$OUT/$pair.stalls.md"
done
echo "[$SECONDS s] done"
