#!/bin/bash
# One device call: GPU test + samples + dropped check, then the overhead table.
bash bench/recorder/device_verify.sh
echo "== overhead (median of 5)"
python3 bench/recorder/run_overhead.py ${D:-.devcarry} 5
