#!/bin/bash
# Which part of the recorder costs what on the launch-bound loop (median of 5, ms).
D=${D:-.devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:$LD_LIBRARY_PATH
run() { # label, env..., -- record args
  local label=$1; shift
  local t=()
  for i in 1 2 3 4 5; do
    t+=($(env "$@" 2>/dev/null | sed -n 's/.*ms=\([0-9.]*\).*/\1/p'))
  done
  printf "%-40s %s\n" "$label" "$(printf '%s\n' "${t[@]}" | sort -n | sed -n 3p)"
}
R="$D/stallscope-record -q -o /tmp/abl.stallscope"
L="$D/launch_bound 2000 4"
run "plain" $L
run "default" $R -- $L
run "no stacks" $R --no-stacks -- $L
run "CUPTI clock" STALLSCOPE_CUPTI_CLOCK=1 $R -- $L
run "kinds sync" $R --kinds sync -- $L
run "kinds kernel" $R --kinds kernel -- $L
run "kinds runtime" $R --kinds runtime -- $L
run "kinds kernel,sync" $R --kinds kernel,sync -- $L
run "kinds all,-runtime,-driver" $R --kinds -runtime,-driver -- $L
run "nothing (kinds -all)" $R --kinds -all --no-stacks -- $L
