#!/bin/bash
# The bundled sample's finding held against its fix, on the GPU machine, from the repository root:
# ROUNDS rounds of sample_train.py as it is and with --fixed (separate processes, the order
# alternating), a recording of the plain script after each of the first RECORDINGS rounds (into
# $OUT/sample.stallscope, then $OUT/sample.rec<N>.stallscope), then $OUT/timings.json in
# compare.py's form (pair "sample_train"; measured = median plain - median fixed loop).
#   OUT (default /tmp/out), RECORD (stallscope-record), ROUNDS (default 5), RECORDINGS (default 2)
# Here: python3 bench/whatif/compare.py $OUT/timings.json --stallscope build/test/app/stallscope
set -u
OUT=${OUT:-/tmp/out}
RECORD=${RECORD:-build/dev/recorder/stallscope-record}
ROUNDS=${ROUNDS:-5}
RECORDINGS=${RECORDINGS:-2}
RAW=$OUT/raw
SCRIPT=bench/recorder/sample_train.py
export PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
mkdir -p "$RAW"
nvidia-smi -L

plain_run() { # VARIANT ROUND
    local flag=""
    [ "$1" = fixed ] && flag=--fixed
    python3 $SCRIPT $flag >"$RAW/sample.$1.$2.txt" 2>&1 || echo "   FAILED (rc $?)"
    echo "   [$SECONDS s] round $2 $1: $(tail -n 1 "$RAW/sample.$1.$2.txt")"
}

for ((r = 0; r < ROUNDS; r++)); do
    if ((r % 2 == 0)); then plain_run plain $r; plain_run fixed $r
    else plain_run fixed $r; plain_run plain $r; fi
    if ((r < RECORDINGS)); then
        session=$OUT/sample.stallscope
        ((r > 0)) && session=$OUT/sample.rec$r.stallscope
        rm -f "$session"
        $RECORD -o "$session" -- python3 $SCRIPT >"$RAW/sample.recorded.$r.txt" 2>&1 ||
            echo "   recording FAILED (rc $?)"
        echo "   [$SECONDS s] recorded $session: $(tail -n 1 "$RAW/sample.recorded.$r.txt")"
    fi
done

python3 - "$RAW" "$OUT/timings.json" "$ROUNDS" "$RECORDINGS" "$SCRIPT" <<'PY'
import json, re, statistics, sys
raw, output, script = sys.argv[1], sys.argv[2], sys.argv[5]
rounds, recordings = int(sys.argv[3]), int(sys.argv[4])
def loop(path):
    """(steps, seconds) from the script's last line, "300 steps in 4.321 s", or None."""
    try:
        found = re.findall(r"^(\d+) steps in ([0-9.]+) s", open(path).read(), re.M)
    except OSError:
        return None
    return (int(found[-1][0]), float(found[-1][1])) if found else None
times = {v: [t for t in (loop("%s/sample.%s.%d.txt" % (raw, v, r)) for r in range(rounds)) if t]
         for v in ("plain", "fixed")}
steps = times["plain"][0][0]
with open(script) as f:
    line = next(n for n, text in enumerate(f, 1) if "loss.item()" in text)
entry = {"in_one_process": False,
         "before_s": [t for _, t in times["plain"]], "after_s": [t for _, t in times["fixed"]],
         "median_before_s": statistics.median(t for _, t in times["plain"]),
         "median_after_s": statistics.median(t for _, t in times["fixed"]),
         "iterations": steps, "syncs_per_iteration": 1, "warmup": 0,
         "sync_site": {"file": script, "line": line}, "recordings": []}
for r in range(recordings):
    recorded = loop("%s/sample.recorded.%d.txt" % (raw, r))
    if recorded:
        entry["recordings"].append({
            "session": "sample.stallscope" if r == 0 else "sample.rec%d.stallscope" % r,
            "recorded": {"loop_s": recorded[1], "iterations": recorded[0]}})
with open(output, "w") as f:
    json.dump({"rounds": rounds, "pairs": {"sample_train": entry}}, f, indent=2)
print("sample_train: plain %s, fixed %s (s)" % (entry["before_s"], entry["after_s"]))
PY
