#!/bin/bash
# One call on a 2-GPU machine (nvidia-h100-x2 / nvidia-h200-x2): the 2-rank DDP job of
# ddp_straggler.py recorded with and without a straggler (rank 1, 20 ms of host work per step),
# each also timed without the recorder (PLAIN=0: not). The run folders come back in
# $OUT/runs-$STEPS.tar.xz for the
# app: `stallscope --insights ddp-straggler/` must name rank 1; `ddp-even/` no straggler.
# Runs the recorder device_gpu_and_fuzz.sh put in build/test/recorder (device_all.sh).
set -u
OUT=${OUT:-/tmp/out}
REC=${REC:-build/test/recorder/stallscope-record} # placed by device_gpu_and_fuzz.sh
STEPS=${STEPS:-60}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
nvidia-smi -L
RUNS=/tmp/runs-$STEPS
PLAIN=${PLAIN:-1} # 0: record only
mkdir -p $RUNS
for variant in straggler even; do
  extra=(); [ $variant = straggler ] && extra=(--straggler-rank 1 --delay-ms 20)
  [ "$PLAIN" = 1 ] && echo "== $variant: plain" &&
  /usr/bin/time -f "plain $variant: %e s" torchrun --standalone --nproc-per-node 2 \
    bench/multigpu/ddp_straggler.py --steps $STEPS "${extra[@]}" 2>&1 | tail -3
  echo "== $variant: recorded"
  /usr/bin/time -f "recorded $variant: %e s" $REC -o $RUNS/ddp-$variant.stallscope -- \
    torchrun --standalone --nproc-per-node 2 bench/multigpu/ddp_straggler.py --steps $STEPS \
    "${extra[@]}" 2>&1 | tail -6
done
# The Python sampler (issue 16, item 4): rank 1's samples of the straggler run must name the busy
# loop of load_batch(), which `stallscope --insights ddp-straggler/` then names as the cause's line.
python3 - $RUNS/ddp-straggler/rank1.stallscope <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
meta = dict(db.execute("select key, value from meta"))
print("rank 1 sampling:", meta.get("sampling"), meta.get("sample_hz"), "Hz, tick mean ns",
      meta.get("sampler_tick_mean_ns"))
rows = db.execute(
    "select f.function, f.line, sum(s.samples) from host_samples s join stack_frames sf on "
    "sf.stack_id = s.stack_id and sf.position = 0 join frames f on f.id = sf.frame_id "
    "group by f.function, f.line order by 3 desc limit 5").fetchall()
print("rank 1 samples by innermost frame:", rows)
print("PASS" if rows and rows[0][0] == "load_batch" else "FAIL: load_batch is not the top line")
PY
ls -laR $RUNS
tar -C $RUNS -cJf $OUT/runs-$STEPS.tar.xz .
