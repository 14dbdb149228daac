#!/bin/bash
# One device call that checks a recorder change and re-records corpus sessions with it: the GPU
# suites (bench/recorder/device_gpu_and_fuzz.sh, no fuzzing), the capture-range overhead
# (bench/recorder/capture_overhead.sh, OVERHEAD_ROUNDS rounds, 0: skipped), then
# bench/corpus/device_record.sh with the same recorder for what is left of BUDGET_S. Everything
# in .devcarry (pack_device.sh's bin and qt-runtime, build.sh's corpus). Output in $OUT: gpu/
# (the suites' logs), capture-overhead.log, record.log, raw.tar, sessions-K.tar.
set -u
FINAL=${OUT:?set OUT}
TOTAL_S=${TOTAL_S:-540}
OVERHEAD_ROUNDS=${OVERHEAD_ROUNDS:-5}
FUZZ_SECONDS=0 OUT=$FINAL/gpu bash bench/recorder/device_gpu_and_fuzz.sh
if [ "$OVERHEAD_ROUNDS" -gt 0 ]; then
    RECORD=.devcarry/bin/stallscope-record ROUNDS=$OVERHEAD_ROUNDS ITERATIONS=${ITERATIONS:-20000} \
        OUT=/tmp/capture-overhead bash bench/recorder/capture_overhead.sh 2>&1 |
        tee "$FINAL/capture-overhead.log"
fi
left=$((TOTAL_S - SECONDS))
echo "== corpus recordings: $left s left"
[ "$left" -gt 30 ] && OUT=$FINAL BUDGET_S=$left bash bench/corpus/device_record.sh
