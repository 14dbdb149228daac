#!/bin/bash
# The flight recorder's memory and disk over a long run (issue 43, item 2): the README's PyTorch
# sample (bench/recorder/sample_train.py --steps N) recorded with `stallscope-record --ring S`,
# and, for comparison, without a ring. Every INTERVAL seconds it writes one CSV line per run:
#   seconds since start, the program's RSS (kB, /proc/PID/status VmRSS: the recorder lives in it),
#   its peak RSS (VmHWM), stallscope-record's RSS, and the session's bytes on disk (with its WAL).
# Usage (on the GPU machine, binaries from bench/recorder/pack_device.sh in .devcarry/bin):
#   bash bench/recorder/ring_rss.sh OUT_DIR RING_SECONDS RUN_SECONDS [INTERVAL] [PLAIN_SECONDS]
# PLAIN_SECONDS (default 0: none) runs the same program that long without a ring afterwards.
# TARGET (environment) replaces the program: a command line that runs longer than the run, e.g. the
# capture tests' launch-bound loop, `.devcarry/bin/capture_range timed 100000 /tmp/count`, which
# writes 17 times the sample's bytes a second: 3.5 minutes of it record an hour of the sample's.
set -u
OUT=$1 RING=$2 RUN=$3 INTERVAL=${4:-10} PLAIN=${5:-0}
BIN=${BIN:-.devcarry/bin}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1

kb() { awk -v key="$2:" '$1 == key { print $2 }' "/proc/$1/status" 2>/dev/null; }

# record NAME SECONDS [stallscope-record options...]
record() {
  local name=$1 seconds=$2
  shift 2
  local session=$OUT/$name.stallscope csv=$OUT/$name.csv
  rm -f "$OUT/$name".*stallscope*
  # More steps than the run lasts; it is stopped with SIGTERM (a background job of a script
  # ignores SIGINT, and stallscope-record forwards no signal it was started ignoring).
  local target=(${TARGET:-python3 bench/recorder/sample_train.py --steps 100000000})
  "$BIN/stallscope-record" -q --no-calibration --no-symbolize "$@" -o "$session" -- \
    "${target[@]}" > "$OUT/$name.log" 2>&1 &
  local recorder=$! program="" start=$SECONDS
  echo "seconds,program_rss_kb,program_hwm_kb,record_rss_kb,session_bytes" > "$csv"
  while [ $((SECONDS - start)) -lt "$seconds" ]; do
    sleep "$INTERVAL"
    [ -z "$program" ] && program=$(pgrep -P $recorder -x "$(basename "${target[0]}")" | head -1)
    local bytes=$(cat "$OUT/$name".recording.stallscope* 2>/dev/null | wc -c)
    echo "$((SECONDS - start)),$(kb "$program" VmRSS),$(kb "$program" VmHWM),$(kb $recorder VmRSS),$bytes" >> "$csv"
  done
  kill -TERM $recorder
  wait $recorder
  echo "$name: $(tail -1 "$csv"), final $(stat -c %s "$session" 2>/dev/null) bytes"
  tail -2 "$OUT/$name.log"
}

nvidia-smi -L
record ring "$RUN" --ring "$RING"
[ "$PLAIN" -gt 0 ] && record plain "$PLAIN"
exit 0
