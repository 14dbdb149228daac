#!/bin/bash
# What making the straggler on time really saves (issue 16): the 2-rank DDP loop of
# ddp_straggler.py with rank 1 late by --delay-ms of host work per step ("straggler") and without
# ("even"), both uninstrumented, interleaved ROUNDS times; rank 0's loop time of each run. The
# median difference is held against the straggler finding's predicted saving of a recording of the
# same loop (device_ddp.sh records it; `stallscope --insights --json ddp-straggler/`).
# Run on a 2-GPU machine (nvidia-h100-x2 / nvidia-h200-x2) from the repository root.
set -u
ROUNDS=${ROUNDS:-5}
STEPS=${STEPS:-60}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 PYTHONUNBUFFERED=1
for round in $(seq 1 "$ROUNDS"); do
  for variant in straggler even; do
    extra=(); [ $variant = straggler ] && extra=(--straggler-rank 1 --delay-ms 20)
    loop=$(torchrun --standalone --nproc-per-node 2 bench/multigpu/ddp_straggler.py \
      --steps "$STEPS" "${extra[@]}" 2>&1 | sed -n 's/.*loop \([0-9.]*\) s$/\1/p')
    echo "round $round $variant loop_s ${loop:-FAILED}"
  done
done
