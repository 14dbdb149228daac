#!/usr/bin/env python3
"""How precisely the corpus's timings measure each pair's saving: every timed round kept in
bench/corpus/results-*/ pooled per pair and GPU kind, and the spread between calls.

    python3 bench/corpus/measured_spread.py [--seed N] [--score TABLE.md --gpu H100] > spread.md

With --score, the predictions of a scored table (a score_one.py/score.py Markdown table: its
"predicted / step" and "severity" columns) are held against the pooled savings of the pairs the
timings resolve, on that GPU kind, by the same rule as score.py.

A round is one separate-process run of `before` and one of `after` (device_call.sh alternates
their order), or one in-process round of alternate.py (rows "GPU, in-process"); a step is the program's CORPUS line's loop_s / steps. Per pair and GPU kind:
  * each call's saving: median before step - median after step of that call's rounds;
  * the pooled saving: the median over every round of every call of the round's own difference
    (before - after, the two runs of a round minutes apart): calls on machines of different speed
    then add rounds, not a mixture of speeds;
  * a 90 % interval of the pooled saving: 2,000 bootstrap resamples of the rounds, within each
    call (a call's machine and hour stay together);
  * "resolved": for a fix worth >= 5 % of the step, the interval lies within [0.80, 1.25] x the
    pooled saving, the band a prediction must hit to hold (score.py); for one under 5 %, the
    interval lies below 5 % of the step. A pair that is not resolved cannot be scored as holding
    or missing on these timings alone.
Calls of 2026-11-29 ran on H200s, those of 2026-12-06 on H100s (their logs name the GPU)."""
import glob
import json
import os
import random
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from collect import corpus_line  # noqa: E402  (one reader of a program's CORPUS line)
CALLS = sorted(glob.glob(os.path.join(HERE, "results-2026-11-29", "corpus*"))) + [
    os.path.join(HERE, "results-2026-12-06", "timed"),
    os.path.join(HERE, "results-2026-12-06", "timed-h100-session2"),
]
# Every later call's raw folder (device_record.sh, device_resolve.sh: results-DATE*/raw).
CALLS += sorted(d for d in glob.glob(os.path.join(HERE, "results-*", "raw")) if d not in CALLS)
BAND = (0.80, 1.25)
SMALL = 0.05  # of the step: a fix worth less is scored by its rating alone


def gpu_of(call):
    """The GPU its logs name (nvidia-smi -L), else by date: 2026-11-29's calls ran on H200s."""
    for log in glob.glob(os.path.join(call, "*.txt")) + glob.glob(os.path.join(call, "*.log")) + \
            glob.glob(os.path.join(call, "..", "*.log")):
        with open(log, errors="replace") as f:
            text = f.read(4096)
        for gpu in ("H200", "H100"):
            if "NVIDIA " + gpu in text:
                return gpu
    return "H200" if "2026-11-29" in call else "H100"


def step_of(path):
    run = corpus_line(path)
    return run["loop_s"] / run["steps"] if run and run.get("steps") else None


def rounds_of(call):
    """{pair: [(before_step, after_step), ...]} for the rounds with both runs."""
    found = {}
    for path in glob.glob(os.path.join(call, "*.before.*.out")):
        pair, _, rnd, _ = os.path.basename(path).rsplit(".", 3)
        before = step_of(path)
        after = step_of(os.path.join(call, "%s.after.%s.out" % (pair, rnd)))
        if before and after:
            found.setdefault(pair, []).append((before, after))
    return found


def inproc_rounds_of(call):
    """{pair: [(before_step, after_step), ...]} from alternate.py's in-process rounds."""
    found = {}
    for path in glob.glob(os.path.join(call, "*.inproc.jsonl")):
        steps = {}
        with open(path) as f:
            for line in f:
                run = json.loads(line)
                if run.get("ok") and run.get("step_s"):
                    steps.setdefault(run["round"], {})[run["variant"]] = run["step_s"]
        pair = os.path.basename(path)[:-len(".inproc.jsonl")]
        rounds = [(r["before"], r["after"]) for r in steps.values() if len(r) == 2]
        if rounds:
            found[pair] = rounds
    return found


def saving(rounds):
    """One call's saving a step, as the scorers compute it."""
    return statistics.median(b for b, _ in rounds) - statistics.median(a for _, a in rounds)


def paired(rounds):
    return statistics.median(b - a for b, a in rounds)


def scored(table, gpu, pooled_of):
    """Rows "| `pair` | measured | predicted µs | severity | ..." of a score table against the
    pooled savings of the resolved pairs: (pair, verdict) per row."""
    rows = []
    half = None
    with open(table) as f:
        for line in f:
            if line.startswith("### "):
                half = line[4:].strip()
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 4 or not cells[0].startswith("`") or not cells[2].endswith("µs"):
                continue
            pair, predicted, severity = cells[0].strip("`"), float(cells[2][:-2]) * 1e-6, cells[3]  # s
            if (pair, gpu) not in pooled_of:
                continue
            pooled, step, resolved = pooled_of[(pair, gpu)]
            if not resolved:
                rows.append((half, pair, None, "not resolved"))
                continue
            if pooled < SMALL * step:
                holds = severity in ("LOW", "–")
                text = "measured < 5 %%; %s" % severity
            else:
                ratio = predicted / pooled
                holds = BAND[0] <= ratio <= BAND[1]
                text = "%.3f ms (%.1f %%) measured, %.1f µs predicted: %.2f×" % (
                    pooled * 1e3, 100 * pooled / step, predicted * 1e6, ratio)
            rows.append((half, pair, holds, text))
    return rows


def pooled_savings(seed=1):
    """One row per (pair, GPU kind) over every kept call: (pair, gpu, calls, pooled saving in s,
    median before step in s, interval low, interval high, resolved)."""
    rng = random.Random(seed)
    by_pair = {}
    for call in CALLS:
        for pair, rounds in rounds_of(call).items():
            by_pair.setdefault((pair, gpu_of(call)), []).append(rounds)
        for pair, rounds in inproc_rounds_of(call).items():
            by_pair.setdefault((pair, gpu_of(call) + ", in-process"), []).append(rounds)
    rows = []
    for (pair, gpu), calls in sorted(by_pair.items()):
        pooled_rounds = [r for rounds in calls for r in rounds]
        pooled = paired(pooled_rounds)
        step = statistics.median(b for b, _ in pooled_rounds)
        boots = sorted(paired([r for rounds in calls for r in rng.choices(rounds, k=len(rounds))])
                       for _ in range(2000))
        low, high = boots[100], boots[1899]
        if pooled < SMALL * step:
            ok = high < SMALL * step
        else:
            ok = BAND[0] * pooled <= low and high <= BAND[1] * pooled
        rows.append((pair, gpu, calls, pooled, step, low, high, ok))
    return rows


def halves():
    """{pair: "hold-out" or "tuning"} (manifest.json)."""
    with open(os.path.join(HERE, "manifest.json")) as f:
        return {p["name"]: "hold-out" if p["holdout"] else "tuning" for p in json.load(f)}


def main():
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 1
    half_of = halves()
    print("| pair | half | GPU | calls | rounds | each call's saving a step | pooled | 90 % interval "
          "| resolved |")
    print("|---|---|---|---|---|---|---|---|---|")
    resolved, pooled_of = {}, {}
    for pair, gpu, calls, pooled, step, low, high, ok in pooled_savings(seed):
        half = half_of.get(pair, "tuning")
        resolved.setdefault((half, gpu), []).append(ok)
        pooled_of[(pair, gpu)] = (pooled, step, ok)
        print("| `%s` | %s | %s | %d | %d | %s | %.3f ms (%.1f %%) | %.3f to %.3f ms | %s |" % (
            pair, half, gpu, len(calls), sum(len(r) for r in calls),
            ", ".join("%.3f" % (saving(r) * 1e3) for r in calls), pooled * 1e3,
            100 * pooled / step, low * 1e3, high * 1e3, "yes" if ok else "no"))
    print()
    for (half, gpu), oks in sorted(resolved.items()):
        print("* %s, %s: %d of %d pairs resolved to the scoring band" % (half, gpu, sum(oks),
                                                                          len(oks)))
    if "--score" in sys.argv:
        table = sys.argv[sys.argv.index("--score") + 1]
        gpu = sys.argv[sys.argv.index("--gpu") + 1] if "--gpu" in sys.argv else "H100"
        rows = scored(table, gpu, pooled_of)
        print("\n| half | pair | pooled measurement against the table's prediction | holds |")
        print("|---|---|---|---|")
        for half, pair, holds, text in rows:
            print("| %s | `%s` | %s | %s |" % (half, pair, text,
                                             "–" if holds is None else "**yes**" if holds else "no"))
        for half in sorted({r[0] for r in rows}):
            judged = [r for r in rows if r[0] == half and r[2] is not None]
            print("* %s: %d of %d resolved pairs hold (%d not resolved)" % (
                half, sum(r[2] for r in judged), len(judged),
                sum(1 for r in rows if r[0] == half and r[2] is None)))


if __name__ == "__main__":
    main()
