#!/bin/bash
# One device call that answers whether switching CUPTI off and on keeps correlation ids apart
# (bench/RESULTS.md, "Issue 38, item 4"): cu_stream_sync_gpu_heavy (a loop that sits in its sync)
# with the overhead probe on (A) and off (B), under --delay/--duration (E), and the capture_range
# test program under repeated cuda-profiler-api (C) and NVTX (D) ranges, into $OUT. Needs
# .devpackA/carry.tar.xz (bench/recorder/pack_device.sh, bench/corpus/build.sh). Then, here:
# python3 bench/recorder/correlation_check.py SESSIONS.
set -u
mkdir -p .devcarry .devqt && tar -C .devcarry -xJf .devpackA/carry.tar.xz && echo untarred; nvidia-smi -L | tee $OUT/gpu.txt
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib
if ldd .devcarry/bin/stallscope-record .devcarry/bin/libstallscope_recorder.so | grep "not found"; then tar -C .devqt -xJf .devpackA/qt-runtime.tar.xz; export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/.devqt; fi
R=".devcarry/bin/stallscope-record -q --no-symbolize --force-overwrite"; C=.devcarry/corpus
STALLSCOPE_OVERHEAD_PROBE=1 timeout 60 $R -o $OUT/A.stallscope -- $C/cu_stream_sync_gpu_heavy/before; echo rcA=$?
STALLSCOPE_OVERHEAD_PROBE=0 timeout 60 $R -o $OUT/B.stallscope -- $C/cu_stream_sync_gpu_heavy/before; echo rcB=$?
timeout 40 $R -o $OUT/C.stallscope --capture-range cuda-profiler-api --capture-range-end repeat -- .devcarry/bin/capture_range ranges; echo rcC=$?
timeout 40 $R -o $OUT/D.stallscope --capture-range nvtx:capture_me --capture-range-end repeat -- .devcarry/bin/capture_range ranges; echo rcD=$?
timeout 60 $R -o $OUT/E.stallscope --delay 0.2 --duration 0.3 -- $C/cu_stream_sync_gpu_heavy/before; echo rcE=$?
for f in $OUT/*.stallscope; do [ $(stat -c %s $f) -gt 20000000 ] && xz -T8 $f; done; ls -la $OUT
