#!/usr/bin/env bash
# README command (b): install what is missing, then build and run every test twice — a normal
# build and an AddressSanitizer + UndefinedBehaviorSanitizer build — and check the formatting.
# Tests labelled `gpu` print SKIP and pass on machines without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
jobs=$(nproc)

echo "== formatting (clang-format)"
git ls-files -- '*.h' '*.cpp' '*.cu' | xargs clang-format --dry-run --Werror

echo "== build and test: release"
cmake -S . -B build/test -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build/test -j "$jobs"
ctest --test-dir build/test --output-on-failure -j "$jobs"

echo "== build and test: address + undefined behaviour sanitizers"
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSTALLSCOPE_SANITIZE=ON \
  -DSTALLSCOPE_BUILD_BENCH=OFF
cmake --build build/asan -j "$jobs"
ctest --test-dir build/asan --output-on-failure -j "$jobs"
