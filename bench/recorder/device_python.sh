#!/bin/bash
# One device call for issue 4 item 3 + the overhead work: GPU tests (C++ sync sites, PyTorch Python
# lines), the README sample, then the side-by-side overhead ablation. Binaries come in .devcarry/.
D=${D:-.devcarry}
OUT=${OUT:-/tmp/out}
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:$LD_LIBRARY_PATH
export PYTHONUNBUFFERED=1
nvidia-smi -L; python3 -c "import sys, torch; print(sys.version.split()[0], torch.__version__)"
python3 bench/recorder/check_cpython_layout.py
echo "== GPU test 1: sync_sites"
$D/stallscope-record -q -o /tmp/cuda.stallscope -- $D/sync_sites >/dev/null
python3 tests/recorder/gpu/check_sync_sites.py /tmp/cuda.stallscope $D/sync_sites.syms | tail -3
echo "== GPU test 2: PyTorch Python lines"
$D/stallscope-record -q -o $OUT/torch_syncs.stallscope -- python3 tests/recorder/gpu/torch_syncs.py
python3 tests/recorder/gpu/check_python_syncs.py $OUT/torch_syncs.stallscope tests/recorder/gpu/torch_syncs.py
echo "== sample"
$D/stallscope-record -o $OUT/sample.stallscope -- python3 bench/recorder/sample_train.py | tail -2
python3 bench/recorder/session_counts.py $OUT/sample.stallscope
python3 bench/recorder/sample_lines.py $OUT/sample.stallscope
ls -la $OUT
echo "== overhead"
python3 bench/recorder/ablation.py $D ${REPS:-5}
