#!/bin/bash
# Fills .devcarry/ for bench/recorder/device_gpu_and_fuzz.sh from the release build (build/test)
# and the fuzz build (build/fuzz), without debug info (the carried tree is limited to 64 MiB)
# except in the programs whose lines the GPU suite checks.
set -euo pipefail
cd "$(dirname "$0")/../.."
C=.devcarry
mkdir -p $C/bin $C/fuzz
for f in build/test/recorder/stallscope-record build/test/recorder/libstallscope_recorder.so \
  build/test/recorder/stallscope-calibrate build/test/tests/recorder/tst_recorder_gpu; do
  strip -g -o $C/bin/$(basename $f) $f
done
# The GPU suite checks that syncs resolve to their source lines: these keep their debug info.
cp build/test/tests/recorder/sync_sites build/test/tests/recorder/sync_sites.syms \
  build/test/tests/recorder/crash_loop build/test/tests/recorder/capture_range $C/bin/
strip -g -o $C/bin/tst_recorder_capture_gpu build/test/tests/recorder/tst_recorder_capture_gpu
strip -g -o $C/bin/tst_recorder_ring_gpu build/test/tests/recorder/tst_recorder_ring_gpu
cp build/test/tests/recorder/flight_loop $C/bin/
if [ -d build/fuzz/tests/fuzz ]; then
  for f in build/fuzz/tests/fuzz/fuzz_*; do
    [ -f "$f" ] && [ -x "$f" ] && strip -g -o $C/fuzz/$(basename $f) $f
  done
fi
bench/recorder/pack_qt_runtime.sh build/test/tests/recorder/tst_recorder_gpu $C/qt-runtime.tar.xz
# The fuzz targets are mostly ASan instrumentation: compressed they travel at a quarter the size.
mv $C/fuzz $C/fuzz_bin && tar -C $C -cJf $C/fuzz.tar.xz fuzz_bin && rm -rf $C/fuzz_bin
du -sh $C
