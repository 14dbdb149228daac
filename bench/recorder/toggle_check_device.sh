#!/bin/bash
# One device call on the correlation fault of switching CUPTI's collection mid-run (bench/RESULTS.md,
# "Issue 38, item 4"): bench/recorder/cupti_toggle (CUPTI alone) in each switching mode on both
# workloads; the recorder's overhead probe on the programs whose ids broke, switching its API
# records (the default) and keeping them (STALLSCOPE_EXPERIMENT=probe-api=keep), each session
# checked with correlation_check.py; capture control's switches (correlation_check_device.sh); the
# GPU suites. Needs .devpackA/carry.tar.xz with bin/cupti_toggle beside the packed recorder.
# Output in $OUT: toggle.log, probe-check.log, sessions, gpu/. SHORT=1: CUPTI alone, the probe on
# two programs and capture control's check, no GPU suites (about 3 minutes).
set -u
SHORT=${SHORT:-0}
mkdir -p .devcarry && tar -C .devcarry -xJf .devpackA/carry.tar.xz && cp .devpackA/qt-runtime.tar.xz .devcarry/
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
nvidia-smi -L | tee $OUT/gpu.txt
for workload in gpu-heavy launches; do # about 5 s a run
  for mode in none all kernels api all-gated; do
    timeout 30 .devcarry/bin/cupti_toggle $mode $workload 2>&1 | tee -a $OUT/toggle.log
  done
done
R=".devcarry/bin/stallscope-record -q --no-symbolize --force-overwrite"; C=.devcarry/corpus; P=bench/corpus/pairs
bash bench/recorder/correlation_check_device.sh > $OUT/capture-check-run.log 2>&1
python3 bench/recorder/correlation_check.py $OUT/[A-E].stallscope 2>&1 | tee $OUT/capture-check.log
mkdir -p $OUT/probe
for variant in switch keep; do
  programs="cu_device_sync_busy_stream cu_stream_sync_gpu_heavy cu_malloc_free_in_loop"
  [ "$SHORT" = 1 ] && programs="cu_device_sync_busy_stream cu_stream_sync_gpu_heavy"
  for prog in $programs; do
    STALLSCOPE_OVERHEAD_PROBE=1 STALLSCOPE_EXPERIMENT=probe-api=$variant timeout 25 $R -o $OUT/probe/$prog-$variant.stallscope -- $C/$prog/before > /dev/null 2>&1; echo "$prog $variant rc=$?"
  done
done
python3 bench/recorder/correlation_check.py $OUT/probe/*.stallscope 2>&1 | tee $OUT/probe-check.log
[ "$SHORT" = 1 ] && exit 0
FUZZ_SECONDS=0 OUT=$OUT/gpu bash bench/recorder/device_gpu_and_fuzz.sh > $OUT/gpu.log 2>&1
grep -E "^(PASS|FAIL|Totals|SKIP)" $OUT/gpu/*.log | grep -v "^.*PASS" | tail -30; grep -h "Totals" $OUT/gpu/*.log
for f in $(find $OUT -name "*.stallscope" -size +20M); do xz -T8 $f; done
