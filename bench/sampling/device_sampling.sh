#!/bin/bash
# One call on a GPU machine (H100): the sampler's overhead (overhead.py, 9 interleaved rounds) on
# a launch-bound and a GPU-bound PyTorch loop, then the GPU test that a sleeping host function is
# sampled (tst_recorder_gpu's sampledHostLine). Needs the recorder of device_gpu_and_fuzz.sh in
# build/test/recorder (device_all.sh places it), PyTorch with CUDA for python3.
#   bash bench/sampling/device_sampling.sh   (writes $OUT/sampling.txt)
set -u
OUT=${OUT:-/tmp/out}
REC=${REC:-build/test/recorder/stallscope-record}
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
mkdir -p $OUT
{
  nvidia-smi -L
  python3 -c "import sys, torch; print(sys.version.split()[0], torch.__version__)"
  python3 bench/sampling/overhead.py $REC ${ROUNDS:-9}
  echo "== sampled host line (tests/recorder/gpu/torch_sampling.py)"
  $REC -q --no-symbolize --force-overwrite -o /tmp/torch_sampling.stallscope -- \
    python3 tests/recorder/gpu/torch_sampling.py &&
    python3 tests/recorder/gpu/check_sampling.py /tmp/torch_sampling.stallscope \
      tests/recorder/gpu/torch_sampling.py
} 2>&1 | tee $OUT/sampling.txt
