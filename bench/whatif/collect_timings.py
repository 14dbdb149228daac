#!/usr/bin/env python3
"""Gathers run_pairs.sh's raw JSON lines into one timings.json:
  collect_timings.py RAW_DIR OUTPUT --rounds N PAIR...
RAW_DIR holds, per pair, either <pair>.both.json, <pair>.both.1.json, ... (processes timing both
variants alternately, one line per loop with its "round": run_pairs.sh's default) or
<pair>.<before|after>.<round>.json (one process per loop: the earlier way), and
<pair>.recorded.json, <pair>.recorded.1.json, ... (one per recording of "before"; each file's JSON
lines are the program's: the recorded loop's, then with SAME_PROCESS=1 the rounds timed in that
process after the recording ended, marked "after_recording"). Without "both" processes the pair's
rounds are those of its recordings. Per pair: the before and after loop_s lists and medians, the
per-round differences (before - after) and their median, iterations, syncs_per_iteration and warmup
(of "before"), the SYNC-SITE's file (as the program sees it, relative to the repository root) and
line, and the recorded runs' own JSON lines with their session files ("recordings")."""
import argparse
import itertools
import json
import os
import statistics

SOURCE_DIR = "bench/whatif"
MARKER = "SYNC-SITE"
FINDING = "FINDING:"  # a pair whose finding has no sync site: its rule


def last_json_line(path):
    """The last line of `path` that is a JSON object, or None (missing file, failed run)."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        lines = [line for line in f if line.startswith("{")]
    return json.loads(lines[-1]) if lines else None


def sync_site(pair):
    """file and line of the marker in the pair's source (.py, else .cu); for a pair whose finding
    is not a sync (a "FINDING: <rule>" line instead), file, line and that rule."""
    for extension in (".py", ".cu"):
        path = os.path.join(SOURCE_DIR, pair + extension)
        if os.path.exists(path):
            with open(path) as f:
                text = f.read().splitlines()
            lines = [number for number, line in enumerate(text, 1) if MARKER in line]
            findings = [(number, line.split(FINDING)[1].strip())
                        for number, line in enumerate(text, 1) if FINDING in line]
            if len(lines) == 0 and len(findings) == 1:
                return {"file": path, "line": findings[0][0], "rule": findings[0][1]}
            if len(lines) != 1:
                raise SystemExit("%s: expected one %s line, found %d" % (path, MARKER, len(lines)))
            return {"file": path, "line": lines[0]}
    raise SystemExit("no source for pair %s in %s" % (pair, SOURCE_DIR))


def json_lines(path):
    """Every line of `path` that is a JSON object (none when the file is missing)."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.startswith("{")]


def both_processes(raw_dir, pair):
    """The lines of every "both" process (<pair>.both.json, <pair>.both.1.json, ...: run_pairs.sh
    runs one before each recording), each tagged with its process's index."""
    lines = []
    for index in itertools.count():
        suffix = ".%d" % index if index else ""
        found = json_lines(os.path.join(raw_dir, "%s.both%s.json" % (pair, suffix)))
        if not found:
            return lines
        lines += [dict(line, process=index) for line in found]


def round_differences(runs):
    """before - after of each round (of each process) that timed both variants."""
    by_round = {}
    for variant in ("before", "after"):
        for index, run in enumerate(runs[variant]):
            if run:
                key = (run.get("process", 0), run.get("round", index))
                by_round.setdefault(key, {})[variant] = run["loop_s"]
    return [r["before"] - r["after"] for _, r in sorted(by_round.items()) if len(r) == 2]


def timed_rounds(runs):
    """Of {variant: [JSON line or None]}: the loops, their medians and the median of the per-round
    differences (None where a variant has no loop)."""
    loops = {variant: [run["loop_s"] for run in found if run] for variant, found in runs.items()}
    differences = round_differences(runs)
    return {
        "differences_s": differences,
        "median_difference_s": statistics.median(differences) if differences else None,
        "before_s": loops["before"],
        "after_s": loops["after"],
        "median_before_s": statistics.median(loops["before"]) if loops["before"] else None,
        "median_after_s": statistics.median(loops["after"]) if loops["after"] else None,
    }


def by_variant(lines):
    return {variant: [line for line in lines if line["variant"] == variant]
            for variant in ("before", "after")}


def recordings(raw_dir, pair):
    """Each recording's JSON line, its session file (run_pairs.sh's names) and, where the process
    timed rounds after its recording ended, those ("rounds", see timed_rounds), until one is
    missing; and the lines of all those rounds, each tagged with its process's index."""
    found, round_lines = [], []
    for index in itertools.count():
        lines = json_lines(os.path.join(
            raw_dir, "%s.recorded%s.json" % (pair, ".%d" % index if index else "")))
        recorded = [line for line in lines if not line.get("after_recording")]
        if not recorded:
            return found, round_lines
        session = "%s%s.stallscope" % (pair, ".rec%d" % index if index else "")
        entry = {"session": session, "recorded": recorded[-1]}
        rounds = [dict(line, process=index) for line in lines if line.get("after_recording")]
        if rounds:
            entry["rounds"] = timed_rounds(by_variant(rounds))
            round_lines += rounds
        found.append(entry)


def collect_pair(raw_dir, pair, rounds):
    recorded, round_lines = recordings(raw_dir, pair)
    both = both_processes(raw_dir, pair)
    same_process = not both and bool(round_lines)
    if same_process:
        both = round_lines
    if both:
        runs = by_variant(both)
    else:
        runs = {variant: [last_json_line(os.path.join(raw_dir, "%s.%s.%d.json" % (pair, variant, r)))
                          for r in range(rounds)] for variant in ("before", "after")}
    first_before = next((run for run in runs["before"] if run), None)
    return {
        "in_one_process": bool(both),
        "rounds_in_recordings": same_process,
        **timed_rounds(runs),
        "iterations": first_before["iterations"] if first_before else None,
        "syncs_per_iteration": first_before["syncs_per_iteration"] if first_before else None,
        "warmup": first_before.get("warmup", 0) if first_before else None,
        "sync_site": sync_site(pair),
        "recordings": recorded,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("raw_dir")
    parser.add_argument("output")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("pairs", nargs="+")
    args = parser.parse_args()
    timings = {"rounds": args.rounds,
               "pairs": {pair: collect_pair(args.raw_dir, pair, args.rounds) for pair in args.pairs}}
    with open(args.output, "w") as f:
        json.dump(timings, f, indent=2)
        f.write("\n")
    for pair, entry in timings["pairs"].items():
        print("%-18s before %s  after %s  difference %s  (median s)" % (
            pair, entry["median_before_s"], entry["median_after_s"], entry["median_difference_s"]))


if __name__ == "__main__":
    main()
