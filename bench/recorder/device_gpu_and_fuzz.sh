#!/bin/bash
# One call on a GPU machine with many cores (nvidia-h200-x2: 32): the gpu-labelled Qt Test suite,
# the Kineto test traces (tests/interop/data/make_traces.py), and long fuzzing (docs/fuzzing.md)
# on the cores the GPU work leaves. Everything comes in .devcarry/ (bench/recorder/pack_device.sh
# fills it); what comes back lands in $OUT:
#   gpu-tests.log, make_traces.log, traces.tar, fuzz.tar.gz (summary, logs, crash inputs),
#   fuzz-corpus.tar.gz (the grown corpora, carried into the next call as .devcarry/fuzz-corpus).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
C=.devcarry
FUZZ_SECONDS=${FUZZ_SECONDS:-480}
FUZZ_JOBS=${FUZZ_JOBS:-6}
TRACES=${TRACES:-}
# The GPU suite has its build-tree paths compiled in (/work/main/build/test/...).
mkdir -p /work && ln -sfn "$PWD" /work/main
mkdir -p build/test/recorder/python build/test/tests/recorder
cp $C/bin/stallscope-record $C/bin/libstallscope_recorder.so $C/bin/stallscope-calibrate \
  build/test/recorder/
cp recorder/python/sitecustomize.py build/test/recorder/python/
cp $C/bin/tst_recorder_gpu $C/bin/sync_sites $C/bin/sync_sites.syms $C/bin/crash_loop \
  $C/bin/tst_recorder_capture_gpu $C/bin/capture_range $C/bin/tst_recorder_ring_gpu \
  $C/bin/flight_loop build/test/tests/recorder/
mkdir -p /tmp/qt && tar -C /tmp/qt -xJf $C/qt-runtime.tar.xz
[ -f $C/fuzz.tar.xz ] && tar -C /tmp -xJf $C/fuzz.tar.xz # -> /tmp/fuzz_bin
export LD_LIBRARY_PATH=/tmp/qt:/usr/local/cuda-13.0/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1 QT_QPA_PLATFORM=offscreen
nvidia-smi -L
nproc

if [ "$FUZZ_SECONDS" -gt 0 ]; then
  mkdir -p /tmp/fuzz/seeds
  cp -r tests/fuzz/corpus/. /tmp/fuzz/seeds/
  if [ -f $C/fuzz-corpus.tar.gz ]; then # the corpora an earlier call grew: seeds too
    mkdir -p /tmp/fuzz/earlier && tar -C /tmp/fuzz/earlier -xzf $C/fuzz-corpus.tar.gz
    for target in /tmp/fuzz/earlier/*/; do
      name=$(basename "$target")
      seeds=$name; [ "$name" = fuzz_chrome_roundtrip ] && seeds=fuzz_kineto
      cp -n "$target"corpus/* /tmp/fuzz/seeds/$seeds/ 2>/dev/null
    done
  fi
  bash tests/fuzz/run_long.sh /tmp/fuzz_bin /tmp/fuzz/seeds tests/fuzz/dicts /tmp/fuzz/out \
    "$FUZZ_SECONDS" "$FUZZ_JOBS" > /tmp/fuzz/run.log 2>&1 &
fi

echo "== ctest label gpu: tst_recorder_gpu"
# GPU_TESTS: test functions to run (Qt Test names), all when empty.
build/test/tests/recorder/tst_recorder_gpu ${GPU_TESTS:-} > $OUT/gpu-tests.log 2>&1
# The verdicts (a failure's lines may lie far from the end of the log), then the log's end.
grep -E "^(PASS|FAIL!|SKIP|XPASS|XFAIL)|^   Loc:|^Totals" $OUT/gpu-tests.log
tail -40 $OUT/gpu-tests.log
echo "== ctest label gpu: tst_recorder_capture_gpu"
build/test/tests/recorder/tst_recorder_capture_gpu > $OUT/capture-gpu-tests.log 2>&1
grep -E "^(PASS|FAIL!|SKIP|XPASS|XFAIL)|^   Loc:|^Totals" $OUT/capture-gpu-tests.log
echo "== ctest label gpu: tst_recorder_ring_gpu"
build/test/tests/recorder/tst_recorder_ring_gpu > $OUT/ring-gpu-tests.log 2>&1
grep -E "^(PASS|FAIL!|SKIP|XPASS|XFAIL)|^   Loc:|^Totals" $OUT/ring-gpu-tests.log
if [ -n "$TRACES" ]; then
  echo "== Kineto test traces: $TRACES"
  python3 tests/interop/data/make_traces.py /tmp/traces $TRACES > $OUT/make_traces.log 2>&1
  tail -5 $OUT/make_traces.log
  tar -C /tmp/traces -cf $OUT/traces.tar .
fi
wait
if [ "$FUZZ_SECONDS" -gt 0 ]; then
  cat /tmp/fuzz/out/summary.txt
  (cd /tmp/fuzz/out && tar -czf $OUT/fuzz.tar.gz summary.txt */log.txt */artifacts &&
    tar -czf $OUT/fuzz-corpus.tar.gz */corpus)
fi
ls -la $OUT
