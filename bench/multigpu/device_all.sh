#!/bin/bash
# One call on a 2-GPU machine: the gpu-labelled suite (bench/recorder/device_gpu_and_fuzz.sh,
# no fuzzing) and the 2-rank DDP recordings (device_ddp.sh). Carry .devcarry/bin and
# .devcarry/qt-runtime.tar.xz (bench/recorder/pack_device.sh).
set -u
export OUT=${OUT:-/tmp/out}
# GPU_TESTS: the suite's test functions to run (all when empty).
FUZZ_SECONDS=0 TRACES= GPU_TESTS=${GPU_TESTS:-} bash bench/recorder/device_gpu_and_fuzz.sh 2>&1 | tail -40
bash bench/multigpu/device_ddp.sh 2>&1 | tee $OUT/ddp.log | tail -40
# A short straggler run: small enough to bundle (resources/sample-ddp/).
STEPS=20 PLAIN=0 bash bench/multigpu/device_ddp.sh 2>&1 | tee $OUT/ddp-20.log | tail -20
