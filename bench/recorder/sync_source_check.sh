#!/bin/bash
# Do the syncs the API callbacks time (the default since 2026-11-26) tell the analysis what CUPTI's
# SYNCHRONIZATION records told it? Runs the what-if pairs (bench/whatif/run_pairs.sh) twice on the
# GPU machine: recordings with the default kinds into $OUT/callbacks, with
# STALLSCOPE_KINDS=all,sync-records into $OUT/records; then, here,
#   stallscope --compare OUT/records/P.stallscope OUT/callbacks/P.stallscope
# should call every site "same" with the same counts, and compare.py grade both alike.
#   OUT, RECORD, PAIRS_BIN, PAIRS as run_pairs.sh; ROUNDS (default 7) for the callbacks run's timing
set -u
OUT=${OUT:-/tmp/out}
export RECORD PAIRS_BIN PAIRS
OUT=$OUT/callbacks ROUNDS=${ROUNDS:-7} bash bench/whatif/run_pairs.sh
OUT=$OUT/records ROUNDS=1 RECORD_ENV="STALLSCOPE_KINDS=all,sync-records" bash bench/whatif/run_pairs.sh
