#!/usr/bin/env bash
# README command (a): install what is missing, build, and start the app on the bundled sample.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTALLSCOPE_BUILD_BENCH=OFF
cmake --build build/release --target stallscope
exec build/release/app/stallscope "$@" resources/sample.stallscope
