#!/bin/bash
# Whether a Python launch loop's speed mode, which changes from one process to the next
# (bench/RESULTS.md, "The sampler's overhead is inside the launch-bound loop's two speed modes"),
# follows the interpreter's hash seed or the address-space layout. Runs launch_bound_sync.py's
# "before" loop in four configurations, interleaved, ROUNDS processes each: as is,
# PYTHONHASHSEED=0, without address-space randomization (setarch -R), and both. Prints one line
# per process: the configuration and the pair's JSON line (its iteration_spread.median_us).
# From the repository root, on the GPU machine: ROUNDS=5 bash bench/whatif/speed_modes.sh
set -u
ROUNDS=${ROUNDS:-5}
ITERS=${ITERS:-3000}
export PYTHONUNBUFFERED=1
for ((round = 0; round < ROUNDS; round++)); do
    for config in default hashseed noaslr both; do
        case $config in
        default) command=(python3) ;;
        hashseed) command=(env PYTHONHASHSEED=0 python3) ;;
        noaslr) command=(setarch "$(uname -m)" -R python3) ;;
        both) command=(env PYTHONHASHSEED=0 setarch "$(uname -m)" -R python3) ;;
        esac
        line=$("${command[@]}" bench/whatif/launch_bound_sync.py --variant before \
            --iters "$ITERS" 2>/dev/null | tail -n 1)
        echo "$config $line"
    done
done
