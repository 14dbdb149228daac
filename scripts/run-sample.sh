#!/usr/bin/env bash
# README command (a): install what is missing, build, and start the app on the bundled sample.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTALLSCOPE_BUILD_BENCH=OFF
# The recorder (File ▸ Record) is a target only where CMake found CUDA with CUPTI.
targets=(stallscope)
if cmake --build build/release --target help | grep "stallscope-record" > /dev/null; then
  targets+=(stallscope-record)
fi
cmake --build build/release --target "${targets[@]}"
exec build/release/app/stallscope "$@" resources/sample.stallscope
