#!/bin/bash
# Builds the corpus's C++ pairs: bench/corpus/build.sh OUTDIR
# writes OUTDIR/<name>/before and OUTDIR/<name>/after for every bench/corpus/pairs/<name>/*.cu.
# Compiles from the repository root (whatever the current directory) with relative source
# paths, so that the line tables name bench/corpus/pairs/<name>/before.cu.
set -euo pipefail
if [ $# -ne 1 ]; then
    echo "usage: bench/corpus/build.sh OUTDIR" >&2
    exit 2
fi
mkdir -p "$1"
OUTDIR=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
JOBS=${JOBS:-$(nproc)}

jobs_list=()
for src in bench/corpus/pairs/*/before.cu bench/corpus/pairs/*/after.cu; do
    [ -f "$src" ] || continue
    name=$(basename "$(dirname "$src")")
    variant=$(basename "$src" .cu)
    mkdir -p "$OUTDIR/$name"
    jobs_list+=("$src $OUTDIR/$name/$variant")
done
printf '%s\n' "${jobs_list[@]}" | xargs -P "$JOBS" -L 1 sh -c \
    "\"$NVCC\" -O2 -g -lineinfo -arch=sm_90 -o \"\$1\" \"\$0\" && echo \"built \$1\""
echo "built ${#jobs_list[@]} programs into $OUTDIR"
