#!/bin/bash
# CTest operation_catalog_live (label gpu): records every script of tests/recorder/gpu/ops now,
# on this machine's GPU, under stallscope-record and under PyTorch's sync debug mode
# (record_operations.sh), and holds the two against each other (check_operations.py). Without a
# CUDA GPU and PyTorch it prints SKIP and passes, as the other gpu suites do.
# Usage: live_operations.sh STALLSCOPE_RECORD STALLSCOPE [KEEP_DIR]
set -u
RECORD=$1 STALLSCOPE=$2 KEEP=${3:-}
HERE=$(cd "$(dirname "$0")" && pwd)
if ! nvidia-smi -L >/dev/null 2>&1 ||
    ! python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
    echo "SKIP: no CUDA GPU with PyTorch for python3"
    exit 0
fi
work=${KEEP:-$(mktemp -d)}
[ -z "$KEEP" ] && trap 'rm -rf "$work"' EXIT
RECORD=$RECORD bash "$HERE/record_operations.sh" "$work" || exit 1
python3 "$HERE/check_operations.py" "$work" "$STALLSCOPE"
