#!/usr/bin/env bash
# Runs every batch command on the adversarial inputs of bench/hostile/make_inputs.py and prints a
# Markdown table: input, command, exit, seconds, peak memory, output size, files created beside
# the input. The inputs' folder is made read-only while the commands run, so that any attempt to
# write beside an input shows up as an error too.
#   bench/hostile/measure.sh STALLSCOPE [INPUT_DIR]
# TIMEOUT_S (default 600) stops a command that runs longer (exit 124); LIMIT_KB caps its address
# space (ulimit -v), so that an older version's blow-up ends in bad_alloc instead of the OOM killer.
set -u
stallscope=$(realpath "$1")
inputs=${2:-/tmp/hostile}
out=$(mktemp -d)
export STALLSCOPE_IMPORT_CACHE=$out/cache QT_QPA_PLATFORM=offscreen
chmod 555 "$inputs"
trap 'chmod 755 "$inputs"; rm -rf "$out"' EXIT
echo "| input | command | exit | s | peak MB | output | files beside the input |"
echo "|---|---|---|---|---|---|---|"
for input in long-names.stallscope huge-meta.stallscope wal.stallscope deep-stacks.json; do
  for command in info insights report-pdf report-html export-chrome compare; do
    case $command in
      info) args=(--info "$inputs/$input") ;;
      insights) args=(--insights "$inputs/$input") ;;
      report-pdf) args=(--report "$out/r.pdf" "$inputs/$input") ;;
      report-html) args=(--report "$out/r.html" "$inputs/$input") ;;
      export-chrome) args=(--export-chrome "$out/e.json" "$inputs/$input") ;;
      compare) args=(--compare "$inputs/$input" "$inputs/$input") ;;
    esac
    before=$(ls -A "$inputs" | sort)
    rm -f "$out"/r.pdf "$out"/r.html "$out"/e.json "$out"/.e.json.tmp-* "$out"/.r.*.tmp-*
    (
      [ -n "${LIMIT_KB:-}" ] && ulimit -v "$LIMIT_KB"
      exec /usr/bin/time -f "%e %M" -o "$out/time" timeout "${TIMEOUT_S:-600}" "$stallscope" \
        "${args[@]}" > "$out/stdout" 2> "$out/stderr"
    )
    code=$?
    read -r seconds kb < <(tail -1 "$out/time")
    after=$(ls -A "$inputs" | sort)
    beside=$(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' ')
    produced=$(stat -c %s "$out"/r.pdf "$out"/r.html "$out"/e.json 2>/dev/null | head -1)
    [ -z "$produced" ] && produced=$(stat -c %s "$out/stdout")
    echo "| $input | ${args[0]} | $code | $seconds | $((kb / 1024)) | $((produced / 1024)) KB | ${beside:-none} |"
  done
done
