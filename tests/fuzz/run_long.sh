#!/usr/bin/env bash
# Long fuzzing runs (docs/fuzzing.md): every target at once, each in libFuzzer's fork mode with
# JOBS workers for SECONDS, going on past crashes so that one run collects them all.
#   tests/fuzz/run_long.sh BIN_DIR CORPUS_ROOT DICT_DIR OUT [SECONDS] [JOBS]
# JOBS_<target> in the environment (JOBS_fuzz_kineto=9) gives one target its own worker count.
# BIN_DIR holds the fuzz_* executables (build/fuzz/tests/fuzz), CORPUS_ROOT the seed folders
# (tests/fuzz/corpus), OUT receives per target: the log, the grown corpus, crash/oom/timeout inputs.
set -uo pipefail
# Each target runs in its own folder under OUT, so every path is made absolute first.
bin=$(realpath "$1") corpus=$(realpath "$2") dicts=$(realpath "$3") out=$(realpath -m "$4")
seconds=${5:-3600} jobs=${6:-2}
declare -A seeds=([fuzz_session_file]=fuzz_session_file [fuzz_session_sql]=fuzz_session_sql
  [fuzz_kineto]=fuzz_kineto [fuzz_chrome_roundtrip]=fuzz_kineto [fuzz_path_remap]=fuzz_path_remap)
declare -A dict=([fuzz_session_sql]=session_sql.dict [fuzz_kineto]=kineto.dict
  [fuzz_chrome_roundtrip]=kineto.dict)
for target in "${!seeds[@]}"; do
  mkdir -p "$out/$target/corpus" "$out/$target/artifacts"
  override="JOBS_$target"
  options=(-fork="${!override:-$jobs}" -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1
    -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1
    -artifact_prefix="$out/$target/artifacts/")
  [ -n "${dict[$target]:-}" ] && options+=(-dict="$dicts/${dict[$target]}")
  (cd "$out/$target" && ASAN_OPTIONS=detect_leaks=0 "$bin/$target" "${options[@]}" \
     corpus "$corpus/${seeds[$target]}" > log.txt 2>&1) &
done
wait
for target in "${!seeds[@]}"; do
  last=$(grep -E "^#[0-9]+" "$out/$target/log.txt" | tail -1)
  echo "$target: $last; artifacts: $(ls "$out/$target/artifacts" | wc -l)"
done | sort | tee "$out/summary.txt"
