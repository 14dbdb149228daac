#!/usr/bin/env bash
# Installs the Debian 12 packages that Stallscope's build, tests and screenshots need.
# A no-op when everything is present. Run as root (or with sudo available).
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config git
  qt6-base-dev libgl-dev            # Qt 6 Core/Gui/Widgets/Test/Concurrent/PrintSupport
  libsqlite3-dev sqlite3            # session files (the sqlite3 CLI for users and docs)
  llvm-14-dev zlib1g-dev            # symbolization (LLVM's symbolizer, static); .json.gz traces
  rapidjson-dev                     # Kineto (torch.profiler) trace import: streaming SAX parser
  libxxhash-dev                     # the column cache's hash (model/session/column_cache.h)
  libbenchmark-dev                  # bench/
  python3-dev                       # tests/recorder: Python frame capture in an embedded interpreter
  clang-format                      # the formatting gate
  lld                               # linking: the test executables link ~5x faster than with GNU ld
  clang-14 libclang-rt-14-dev       # tests/fuzz: libFuzzer targets (clang) with ASan/UBSan
  xvfb xauth poppler-utils          # headless GUI runs, screenshots, PDF pages
  fonts-dejavu-core                 # text in offscreen and Xvfb renderings
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo=sudo
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
