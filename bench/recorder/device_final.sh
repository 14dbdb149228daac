#!/bin/bash
# One device call: the gpu-labelled Qt Test suite (Qt runtime carried in .devcarry), then the
# README's samples recorded through stallscope-record (which symbolizes them at the end).
# Carried (B = the build folder, default build/full): $B/recorder/{stallscope-record,libstallscope_recorder.so},
#          $B/tests/recorder/{tst_recorder_gpu,sync_sites,sync_sites.syms}, .devcarry/qt-runtime.tar.xz
set -u
OUT=${OUT:-/tmp/out}
B=${B:-build/full}
mkdir -p /tmp/qt && tar -C /tmp/qt -xJf .devcarry/qt-runtime.tar.xz
export LD_LIBRARY_PATH=/tmp/qt:/usr/local/cuda-13.0/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1 QT_QPA_PLATFORM=offscreen
nvidia-smi -L
echo "== ctest label gpu: tst_recorder_gpu"
$B/tests/recorder/tst_recorder_gpu 2>&1 | tee $OUT/gpu-tests.log
echo "== sample (PyTorch training loop with in-loop .item())"
$B/recorder/stallscope-record -o $OUT/sample.stallscope -- python3 bench/recorder/sample_train.py
echo "== sample-cuda (C++ sync sites)"
$B/recorder/stallscope-record -o $OUT/sample-cuda.stallscope -- $B/tests/recorder/sync_sites
python3 tests/recorder/gpu/check_sync_sites.py $OUT/sample-cuda.stallscope $B/tests/recorder/sync_sites.syms | tail -4
ls -la $OUT
