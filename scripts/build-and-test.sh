#!/usr/bin/env bash
# README command (b): install what is missing, then check the formatting and build and run every
# test twice — a normal build and an AddressSanitizer + UndefinedBehaviorSanitizer build — then
# run each fuzz target for a while (libFuzzer, clang, ASan/UBSan) and the threaded suites under
# ThreadSanitizer. STALLSCOPE_FUZZ_SECONDS is each fuzz target's time (default 30, so that CI stays
# near 30 minutes on 2 cores; the long fuzzing runs are bench/recorder/device_gpu_and_fuzz.sh).
# Tests labelled `gpu` print SKIP and pass on machines without a GPU.
# The release and ASan builds precompile Qt's headers and keep line tables only (-g1: enough for
# sanitizer reports and backtraces), which halves their compile time on two cores
# (cmake/precompiled_headers.cmake); the fuzz build compiles without them, so a missing #include in
# the Qt-free and QtCore code still fails here (GUI code: developers build without them).
# The release, ASan and TSan builds are also unity builds (CMAKE_UNITY_BUILD: each target's sources
# compiled a few at a time as one file), which took the clean ASan build from 616 s to 443 s on two
# cores and the TSan stage's build from ~280 s to 176 s (docs/testing.md); the fuzz build stays one
# file at a time for the same reason, at -O1 with line tables only (as OSS-Fuzz builds its targets:
# a seventh less compile time than -O2 -g under the sanitizers).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
jobs=$(nproc)

echo "== formatting (clang-format)"
git ls-files -- '*.h' '*.cpp' '*.cu' | xargs clang-format --dry-run --Werror

echo "== build and test: release"
cmake -S . -B build/test -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSTALLSCOPE_PRECOMPILED_HEADERS=ON -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DCMAKE_UNITY_BUILD=ON
cmake --build build/test -j "$jobs"
ctest --test-dir build/test --output-on-failure -j "$jobs"

echo "== build and test: address + undefined behaviour sanitizers"
cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSTALLSCOPE_SANITIZE=ON \
  -DSTALLSCOPE_BUILD_BENCH=OFF -DSTALLSCOPE_PRECOMPILED_HEADERS=ON -DCMAKE_CXX_FLAGS_DEBUG="-g1" \
  -DCMAKE_UNITY_BUILD=ON
cmake --build build/asan -j "$jobs"
ctest --test-dir build/asan --output-on-failure -j "$jobs"

echo "== fuzz targets: libFuzzer + address/undefined sanitizers (tests/fuzz, docs/fuzzing.md)"
cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DSTALLSCOPE_FUZZ=ON \
  -DSTALLSCOPE_FUZZ_SECONDS="${STALLSCOPE_FUZZ_SECONDS:-30}" \
  -DSTALLSCOPE_BUILD_APP=OFF -DSTALLSCOPE_BUILD_BENCH=OFF
cmake --build build/fuzz -j "$jobs" --target fuzzers
ctest --test-dir build/fuzz -L fuzz --output-on-failure -j "$jobs"

echo "== thread sanitizer: the threaded suites (label threads)"
cmake -S . -B build/tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTALLSCOPE_TSAN=ON \
  -DSTALLSCOPE_BUILD_APP=OFF -DSTALLSCOPE_BUILD_BENCH=OFF -DSTALLSCOPE_PRECOMPILED_HEADERS=ON \
  -DCMAKE_UNITY_BUILD=ON
cmake --build build/tsan -j "$jobs" --target threaded_tests
ctest --test-dir build/tsan -L threads --output-on-failure -j "$jobs"
