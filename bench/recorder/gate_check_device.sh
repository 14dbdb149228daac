#!/bin/bash
# One device call on the overhead probe's API gate (recorder/api_gate.h; bench/RESULTS.md, "Issue
# 38, item 4"): the probe on four C++ and two PyTorch programs of the corpus with the gate on (the
# product) and off (STALLSCOPE_EXPERIMENT=probe-gate=off), each session checked with
# correlation_check.py; what the gate's callbacks cost on the launch-bound loop (plain, recorded,
# recorded with the probe gated and ungated, 5 interleaved rounds, the loop's own time); the
# GPU suites. Needs .devpackA (bench/recorder/pack_device.sh, bench/corpus/build.sh).
# Output in $OUT (few files: the device tool brings back a handful): probe-check.log,
# overhead.log, gpu-suites.log, probe.tar.xz (the sessions).
set -u
mkdir -p .devcarry && tar -C .devcarry -xJf .devpackA/carry.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
nvidia-smi -L | tee $OUT/gpu.txt
R=".devcarry/bin/stallscope-record -q --no-symbolize --no-calibration --force-overwrite"
C=.devcarry/corpus; P=bench/corpus/pairs
mkdir -p $OUT/probe
for gate in on off; do
  for prog in cu_device_sync_busy_stream cu_stream_sync_gpu_heavy cu_malloc_free_in_loop cu_launch_bound_graph; do
    STALLSCOPE_OVERHEAD_PROBE=1 STALLSCOPE_EXPERIMENT=probe-gate=$gate timeout 40 \
      $R -o $OUT/probe/$prog-gate-$gate.stallscope -- $C/$prog/before > /dev/null 2>&1
    echo "$prog gate=$gate rc=$?"
  done
  for py in item_logging_gpu bool_mask_loss; do
    STALLSCOPE_OVERHEAD_PROBE=1 STALLSCOPE_EXPERIMENT=probe-gate=$gate timeout 120 \
      $R -o $OUT/probe/$py-gate-$gate.stallscope -- python3 $P/$py/before.py --steps 300 > /dev/null 2>&1
    echo "$py gate=$gate rc=$?"
  done
done
python3 bench/recorder/correlation_check.py $OUT/probe/*.stallscope 2>&1 | tee $OUT/probe-check.log
loop() { grep -o '"loop_s": [0-9.]*' | cut -d' ' -f2; }
prog=$C/cu_launch_bound_graph/before
for round in 1 2 3 4 5; do
  echo "round $round plain $($prog 2>/dev/null | loop)"
  echo "round $round recorded $(STALLSCOPE_OVERHEAD_PROBE=0 $R -o $OUT/o.stallscope -- $prog 2>/dev/null | loop)"
  echo "round $round probe-gated $(STALLSCOPE_OVERHEAD_PROBE=1 $R -o $OUT/o.stallscope -- $prog 2>/dev/null | loop)"
  echo "round $round probe-ungated $(STALLSCOPE_OVERHEAD_PROBE=1 STALLSCOPE_EXPERIMENT=probe-gate=off $R -o $OUT/o.stallscope -- $prog 2>/dev/null | loop)"
done 2>&1 | tee $OUT/overhead.log
rm -f $OUT/o.stallscope
cp .devpackA/qt-runtime.tar.xz .devcarry/
FUZZ_SECONDS=0 OUT=/tmp/gpu bash bench/recorder/device_gpu_and_fuzz.sh > /tmp/gpu.log 2>&1
cat /tmp/gpu/gpu-tests.log /tmp/gpu/capture-gpu-tests.log > $OUT/gpu-suites.log
grep -hE "^(PASS|FAIL!|SKIP|Totals)|^   Loc:|gate o" $OUT/gpu-suites.log
tar -C $OUT -cJf $OUT/probe.tar.xz probe && rm -rf $OUT/probe
