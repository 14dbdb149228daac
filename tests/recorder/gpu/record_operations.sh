#!/bin/bash
# On a GPU machine: records each script of tests/recorder/gpu/ops (op_<name>.py: named so that
# none shadows a module the script imports, as a file numpy.py would) under stallscope-record and
# runs it under PyTorch's sync debug mode (sync_debug_lines.py), into OUT:
#   <name>.stallscope, <name>.flagged (the lines PyTorch flags), <name>.err
# check_operations.py then holds the two against each other. RECORD: stallscope-record.
set -u
OUT=${1:?usage: record_operations.sh OUT}
RECORD=${RECORD:-build/test/recorder/stallscope-record}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
for script in "$HERE"/ops/op_*.py; do
    name=$(basename "$script" .py)
    name=${name#op_}
    rm -f "$OUT/$name.stallscope"
    "$RECORD" -o "$OUT/$name.stallscope" -- python3 "$script" >/dev/null 2>"$OUT/$name.err" ||
        echo "$name: recording failed: $(tail -n 1 "$OUT/$name.err")"
    python3 "$HERE/sync_debug_lines.py" "$script" 2>>"$OUT/$name.err" | grep '^FLAGGED' |
        sort -u >"$OUT/$name.flagged"
    echo "$name: $(wc -l <"$OUT/$name.flagged") lines flagged"
done
