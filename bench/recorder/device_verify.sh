#!/bin/bash
# On the GPU machine: GPU test + samples + dropped-records check. Binaries come in .devcarry/.
D=${D:-.devcarry}
OUT=${OUT:-/tmp/out}
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:$LD_LIBRARY_PATH
export PYTHONUNBUFFERED=1
nvidia-smi -L
echo "== GPU test: sync_sites under stallscope-record"
$D/stallscope-record -o $OUT/sample-cuda.stallscope -- $D/sync_sites
python3 tests/recorder/gpu/check_sync_sites.py $OUT/sample-cuda.stallscope $D/sync_sites.syms
echo "== PyTorch sample"
$D/stallscope-record -o $OUT/sample.stallscope -- python3 bench/recorder/sample_train.py
python3 bench/recorder/session_counts.py $OUT/sample.stallscope
echo "== dropped records at >=100k kernels/s"
$D/stallscope-record -o /tmp/rate.stallscope -- $D/launch_bound 50000 10
python3 bench/recorder/session_counts.py /tmp/rate.stallscope
