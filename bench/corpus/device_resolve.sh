#!/bin/bash
# One device call that adds timings where the corpus's own measurement cannot yet tell a hold from a
# miss (bench/corpus/measured_spread.py: "not resolved"): for each pair of PAIRS, ROUNDS more
# separate-process rounds of before/after (device_call.sh, order alternating, no recording) and,
# for a Python pair, ROUNDS in-process alternating rounds (alternate.py: one interpreter, the two
# programs in turn, so a process's speed mode hits both alike). Raw output in $OUT/raw/ (then
# copy it to bench/corpus/results-DATE/raw: measured_spread.py reads both kinds of round there).
#   PAIRS     default: the eight hold-out pairs unresolved on H100s at 2026-12-07
#   ROUNDS    default 5;  BUDGET_S  default 540 (no pair starts after it)
# Needs what device_call.sh needs (.devcarry/ from bench/recorder/pack_device.sh, the C++ pairs
# built by build.sh into .devcarry/corpus).
set -u
OUT=${OUT:?set OUT}
PAIRS=${PAIRS:-"bool_mask_loss pageable_h2d_batches print_loss_each_step empty_cache_each_step
  assert_all_nonneg max_len_item_pad isfinite_skip_step loss_spike_guard"}
ROUNDS=${ROUNDS:-5}
BUDGET_S=${BUDGET_S:-540}
export PYTHONUNBUFFERED=1
mkdir -p "$OUT/raw"
nvidia-smi -L | tee "$OUT/raw/gpu.txt"
left=""
for pair in $PAIRS; do
    if [ "$SECONDS" -ge "$BUDGET_S" ]; then
        left="$left $pair"
        continue
    fi
    OUT=$OUT PAIRS=$pair ROUNDS=$ROUNDS RECORDINGS=0 BUDGET_S=100000 \
        bash "$(dirname "$0")/device_call.sh" >>"$OUT/raw/separate.log" 2>&1
    if [ -f "bench/corpus/pairs/$pair/before.py" ]; then
        timeout -k 10 600 python3 bench/corpus/alternate.py --pair "$pair" --rounds "$ROUNDS" \
            --raw "$OUT/raw" >>"$OUT/raw/inproc.log" 2>&1
    fi
    echo "[$SECONDS s] $pair"
done
[ -n "$left" ] && echo "not run:$left"
