#!/bin/bash
# Builds the C++ pair: bench/whatif/build.sh [OUTPUT_DIR]   (default build/whatif), run from the
# repository root so that the binary's line table names bench/whatif/cuda_stream_sync.cu.
set -euo pipefail
OUTPUT_DIR=${1:-build/whatif}
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p "$OUTPUT_DIR"
"$NVCC" -O2 -g -lineinfo -arch=sm_90 -I. -o "$OUTPUT_DIR/cuda_stream_sync" bench/whatif/cuda_stream_sync.cu
"$NVCC" -O2 -std=c++17 -arch=sm_90 -I. -o "$OUTPUT_DIR/queue_gaps" bench/whatif/queue_gaps.cu
echo "built $OUTPUT_DIR/cuda_stream_sync and $OUTPUT_DIR/queue_gaps"
