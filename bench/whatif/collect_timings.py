#!/usr/bin/env python3
"""Gathers run_pairs.sh's raw JSON lines into one timings.json:
  collect_timings.py RAW_DIR OUTPUT --rounds N PAIR...
RAW_DIR holds <pair>.<before|after>.<round>.json and <pair>.recorded.json (each ends with the
program's JSON line). Per pair: the before and after loop_s lists and medians, iterations,
syncs_per_iteration and warmup (of "before"), the SYNC-SITE's file (as the program sees it,
relative to the repository root) and line, and the recorded run's own JSON line."""
import argparse
import json
import os
import statistics

SOURCE_DIR = "bench/whatif"
MARKER = "SYNC-SITE"


def last_json_line(path):
    """The last line of `path` that is a JSON object, or None (missing file, failed run)."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        lines = [line for line in f if line.startswith("{")]
    return json.loads(lines[-1]) if lines else None


def sync_site(pair):
    """file and line of the marker in the pair's source (.py, else .cu)."""
    for extension in (".py", ".cu"):
        path = os.path.join(SOURCE_DIR, pair + extension)
        if os.path.exists(path):
            with open(path) as f:
                lines = [number for number, text in enumerate(f, 1) if MARKER in text]
            if len(lines) != 1:
                raise SystemExit("%s: expected one %s line, found %d" % (path, MARKER, len(lines)))
            return {"file": path, "line": lines[0]}
    raise SystemExit("no source for pair %s in %s" % (pair, SOURCE_DIR))


def collect_pair(raw_dir, pair, rounds):
    runs = {variant: [last_json_line(os.path.join(raw_dir, "%s.%s.%d.json" % (pair, variant, r)))
                      for r in range(rounds)] for variant in ("before", "after")}
    loops = {variant: [run["loop_s"] for run in found if run] for variant, found in runs.items()}
    first_before = next((run for run in runs["before"] if run), None)
    return {
        "before_s": loops["before"],
        "after_s": loops["after"],
        "median_before_s": statistics.median(loops["before"]) if loops["before"] else None,
        "median_after_s": statistics.median(loops["after"]) if loops["after"] else None,
        "iterations": first_before["iterations"] if first_before else None,
        "syncs_per_iteration": first_before["syncs_per_iteration"] if first_before else None,
        "warmup": first_before.get("warmup", 0) if first_before else None,
        "sync_site": sync_site(pair),
        "recorded": last_json_line(os.path.join(raw_dir, pair + ".recorded.json")),
        "session": pair + ".stallscope",
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
        print("%-18s before %s  after %s  (median s)" % (pair, entry["median_before_s"],
                                                        entry["median_after_s"]))


if __name__ == "__main__":
    main()
