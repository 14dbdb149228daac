#!/usr/bin/env bash
# README command (b): install what is missing, then check the formatting and build and run every
# test three times — a normal build, an AddressSanitizer + UndefinedBehaviorSanitizer build, and
# the threaded suites under ThreadSanitizer. Every build replays each fuzz target's corpus and
# regression inputs (replay_<target>, docs/fuzzing.md). Tests labelled `gpu` print SKIP and pass on
# machines without a GPU.
# STALLSCOPE_FUZZ_SECONDS=N (default 0) also builds the fuzz targets with libFuzzer (clang,
# ASan/UBSan) and runs each for N seconds; the long fuzzing runs are
# bench/recorder/device_gpu_and_fuzz.sh.
# How the ~20 minutes on two cores are kept (docs/testing.md, "How long CI takes"):
# - the suites of a test folder form one executable, compiled a few suites at a time as one unit;
# - the release and ASan builds are unity builds (CMAKE_UNITY_BUILD: each target's sources a few at
#   a time as one file) that precompile Qt's and the standard library's headers and keep line
#   tables only (-g1: enough for sanitizer reports and backtraces);
# - the ThreadSanitizer build makes only the threaded suites and their libraries, at -O1 with line
#   tables (what TSan's reports need), and compiles those libraries one file at a time without
#   precompiled headers, as README command (a) builds them: a missing #include in the Qt-free and
#   QtCore code fails there.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
jobs=$(nproc)

echo "== formatting (clang-format)"
git ls-files -- '*.h' '*.cpp' '*.cu' | xargs -P "$jobs" -n 100 clang-format --dry-run --Werror

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

if [ "${STALLSCOPE_FUZZ_SECONDS:-0}" -gt 0 ]; then
  echo "== fuzz targets: libFuzzer + address/undefined sanitizers (tests/fuzz, docs/fuzzing.md)"
  cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DSTALLSCOPE_FUZZ=ON \
    -DSTALLSCOPE_FUZZ_SECONDS="${STALLSCOPE_FUZZ_SECONDS}" \
    -DSTALLSCOPE_BUILD_APP=OFF -DSTALLSCOPE_BUILD_BENCH=OFF
  cmake --build build/fuzz -j "$jobs" --target fuzzers
  ctest --test-dir build/fuzz -L fuzz --output-on-failure -j "$jobs"
fi

echo "== thread sanitizer: the threaded suites (label threads)"
cmake -S . -B build/tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTALLSCOPE_TSAN=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DSTALLSCOPE_BUILD_APP=OFF -DSTALLSCOPE_BUILD_BENCH=OFF -DSTALLSCOPE_PRECOMPILED_HEADERS=OFF \
  -DCMAKE_UNITY_BUILD=OFF
cmake --build build/tsan -j "$jobs" --target threaded_tests
ctest --test-dir build/tsan -L threads --output-on-failure -j "$jobs"
