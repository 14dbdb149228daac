#!/usr/bin/env bash
# The fleet summary on a big run (issue 43 item 4): generates a data-parallel run folder with
# stallscope-gen (a planted straggler), then times `stallscope --summary RUN/` and, for reference,
# the full loader `stallscope --info RUN/`, each with /usr/bin/time -v (wall time, peak RSS), twice
# (the second run finds the files in the page cache). With REPLICATE=N it also builds an N-rank
# folder of renumbered copies of the generated ranks' files (hard links are not enough: each copy
# gets its own rank) and times --summary on it: the memory of many ranks.
# Files go under $TMPDIR (default /tmp) and are removed at the end unless KEEP=1; RUN=FOLDER
# measures a folder generated before (as this script generates it) instead.
# Usage: bench/fleet/summary_bench.sh BUILD_DIR RANKS EVENTS_PER_RANK
set -euo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR RANKS EVENTS_PER_RANK}" && pwd)
ranks=${2:?ranks}
per_rank=${3:?events per rank}
work=$(mktemp -d "${TMPDIR:-/tmp}/stallscope-fleet-bench.XXXXXX")
[[ "${KEEP:-0}" == 1 ]] || trap 'rm -rf "$work"' EXIT
run=${RUN:-$work/run}

measure() { # label, command...
  local label=$1
  shift
  for pass in 1 2; do
    /usr/bin/time -v "$@" > "$work/out.txt" 2> "$work/time.txt" || {
      cat "$work/time.txt" >&2
      return 1
    }
    local wall rss
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
    printf '%-28s pass %d: wall %s, peak RSS %d MB\n' "$label" "$pass" "$wall" $((rss / 1024))
  done
}

if [[ -z "${RUN:-}" ]]; then
  start=$(date +%s)
  "$build/bench/stallscope-gen" --ranks "$ranks" --run-folder --events $((ranks * per_rank)) \
    --straggler-rank $((ranks / 3)) --straggler-delay-us 6000 --rank-jitter-us 300 --seed 43 \
    -q -o "$run"
  echo "generated $ranks ranks x $per_rank events in $(($(date +%s) - start)) s"
fi
echo "$run: $(ls "$run" | wc -l) files, $(du -sh "$run" | cut -f1) on disk"
measure "--summary ($ranks ranks)" "$build/app/stallscope" --summary "$run"
sed -n '/^Collectives/,/^Most often/p' "$work/out.txt"
measure "--info ($ranks ranks)" "$build/app/stallscope" --info "$run"

if [[ -n "${REPLICATE:-}" ]]; then
  wide="$work/wide"
  mkdir -p "$wide"
  for ((r = 0; r < REPLICATE; r++)); do
    copy="$wide/rank$r.stallscope"
    cp "$run/rank$((r % ranks)).stallscope" "$copy"
    sqlite3 "$copy" "UPDATE process_ranks SET rank = $r, world_size = $REPLICATE;
                     UPDATE processes SET pid = pid + $r * 100000"
  done
  echo "replicated to $REPLICATE ranks: $(du -sh "$wide" | cut -f1) on disk"
  measure "--summary ($REPLICATE ranks)" "$build/app/stallscope" --summary "$wide"
  sed -n '/^Collectives/,/^Most often/p' "$work/out.txt"
fi
