#!/usr/bin/env python3
"""Collects the corpus's raw timing output into one timings.json.

    python3 bench/corpus/collect.py RAW_DIR OUT/timings.json [PAIR ...]

RAW_DIR is what bench/corpus/run_corpus.sh wrote into $OUT/raw (raw folders of several calls
may be copied together first). Per pair (default: every manifest pair with files in RAW_DIR):

  separate   the separate-process rounds: before and after step times (loop_s / steps) per
             round, their medians, saving_step_s = median before - median after, share =
             saving / median before, and median_round_diff_s (median of the rounds' before -
             after, for reference)
  inprocess  the same from bench/corpus/alternate.py's rounds, except that saving_step_s is the
             median of the rounds' differences (before - after of the same round); "n/a" for
             C++ pairs
  fix        where the fix is: {"file": "bench/corpus/pairs/NAME/before.py", "line": N} from the
             line marked "# FIX:" / "// FIX:", or {"rule": RULE, "file", "line"} from a
             "FIX-RULE: RULE" marker (the pair's finding is that rule, not a sync site)
  recordings the sessions (file names relative to timings.json's folder) with each recorded
             run's exit status and CORPUS line
plus the manifest's fields. Failed runs are listed under "failures" and left out of the numbers.
"""
import argparse
import glob
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIX_RE = re.compile(r"(?:#|//)\s*FIX:")
RULE_RE = re.compile(r"(?:#|//)\s*FIX-RULE:\s*([A-Za-z0-9_-]+)")


def corpus_line(path):
    """The last CORPUS object printed in the file at path, or None."""
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        if line.startswith("CORPUS "):
            try:
                return json.loads(line[len("CORPUS "):])
            except ValueError:
                return None
    return None


def read_rc(path):
    try:
        with open(path) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def find_fix(name):
    """The FIX marker of the pair's before program, relative to the repository root."""
    for ext in ("py", "cu"):
        rel = "bench/corpus/pairs/%s/before.%s" % (name, ext)
        path = os.path.join(ROOT, rel)
        if not os.path.exists(path):
            continue
        with open(path) as f:
            for number, line in enumerate(f, 1):
                rule = RULE_RE.search(line)
                if rule:
                    return {"rule": rule.group(1), "file": rel, "line": number}
                if FIX_RE.search(line):
                    return {"file": rel, "line": number}
        return {"file": rel, "line": None, "error": "no FIX marker"}
    return None


def median(values):
    return statistics.median(values) if values else None


def summarize(before, after, diffs, use_diffs):
    """Medians and saving of lists of step times (seconds)."""
    out = {"before_step_s": before, "after_step_s": after, "round_diffs_s": diffs,
           "median_before_s": median(before), "median_after_s": median(after),
           "median_round_diff_s": median(diffs)}
    if out["median_before_s"] is not None and out["median_after_s"] is not None:
        saving = out["median_round_diff_s"] if use_diffs and diffs else out["median_before_s"] - out["median_after_s"]
        out["saving_step_s"] = saving
        out["share"] = saving / out["median_before_s"] if out["median_before_s"] else None
    else:
        out["saving_step_s"] = None
        out["share"] = None
    return out


def separate_mode(raw, name, failures):
    rounds = {}
    for path in glob.glob(os.path.join(raw, "%s.sep.r*.*.out" % glob.escape(name))):
        m = re.match(r".*\.sep\.r(\d+)\.(before|after)\.out$", path)
        if not m:
            continue
        r, variant = int(m.group(1)), m.group(2)
        found = corpus_line(path)
        rc = read_rc(path[:-4] + ".rc")
        if not found or not found.get("steps") or (rc not in (0, None)):
            failures.append({"mode": "separate", "round": r, "variant": variant, "rc": rc,
                             "file": os.path.basename(path)})
            continue
        rounds.setdefault(r, {})[variant] = found["loop_s"] / found["steps"]
        rounds[r]["steps"] = found["steps"]
        rounds[r]["warmup"] = found.get("warmup")
    before = [rounds[r]["before"] for r in sorted(rounds) if "before" in rounds[r]]
    after = [rounds[r]["after"] for r in sorted(rounds) if "after" in rounds[r]]
    diffs = [rounds[r]["before"] - rounds[r]["after"] for r in sorted(rounds)
             if "before" in rounds[r] and "after" in rounds[r]]
    out = summarize(before, after, diffs, use_diffs=False)
    out["rounds"] = [dict(round=r, first="before" if r % 2 == 0 else "after",
                          **{k: v for k, v in rounds[r].items() if k in ("before", "after")})
                     for r in sorted(rounds)]
    steps = [rounds[r]["steps"] for r in rounds]
    warmups = [rounds[r]["warmup"] for r in rounds if rounds[r].get("warmup") is not None]
    return out, (steps[0] if steps else None), (warmups[0] if warmups else None)


def inprocess_mode(raw, name, failures):
    path = os.path.join(raw, name + ".inproc.jsonl")
    if not os.path.exists(path):
        return None
    rounds = {}
    with open(path) as f:
        for line in f:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if rec.get("status") == "n/a":
                return "n/a"
            if not rec.get("ok") or not rec.get("step_s"):
                failures.append({"mode": "inprocess", "round": rec.get("round"), "variant": rec.get("variant"),
                                 "error": (rec.get("error") or "").strip().splitlines()[-1:]})
                continue
            rounds.setdefault(rec["round"], {})[rec["variant"]] = rec["step_s"]
    before = [rounds[r]["before"] for r in sorted(rounds) if "before" in rounds[r]]
    after = [rounds[r]["after"] for r in sorted(rounds) if "after" in rounds[r]]
    diffs = [rounds[r]["before"] - rounds[r]["after"] for r in sorted(rounds)
             if "before" in rounds[r] and "after" in rounds[r]]
    out = summarize(before, after, diffs, use_diffs=True)
    out["rounds"] = [dict(round=r, first="before" if r % 2 == 0 else "after", **rounds[r]) for r in sorted(rounds)]
    return out


def recordings(raw, name, out_dir):
    found = []
    for path in sorted(glob.glob(os.path.join(raw, "%s.rec*.out" % glob.escape(name))),
                       key=lambda p: int(re.search(r"\.rec(\d+)\.out$", p).group(1))
                       if re.search(r"\.rec(\d+)\.out$", p) else 0):
        m = re.search(r"\.rec(\d+)\.out$", path)
        if not m:
            continue
        k = int(m.group(1))
        session = "%s.rec%d.stallscope" % (name, k)
        line = corpus_line(path)
        entry = {"k": k, "session": session, "rc": read_rc(path[:-4] + ".rc"),
                 "session_present": os.path.exists(os.path.join(out_dir, session)),
                 "corpus": line}
        if line and line.get("steps"):
            entry["step_s"] = line["loop_s"] / line["steps"]
        found.append(entry)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("raw")
    parser.add_argument("output")
    parser.add_argument("pairs", nargs="*")
    parser.add_argument("--manifest", default=os.path.join(HERE, "manifest.json"))
    args = parser.parse_args()

    with open(args.manifest) as f:
        manifest = json.load(f)
    by_name = {p["name"]: p for p in manifest}
    present = {os.path.basename(p).split(".")[0] for p in glob.glob(os.path.join(args.raw, "*.*"))}
    names = args.pairs or [p["name"] for p in manifest if p["name"] in present]
    out_dir = os.path.dirname(os.path.abspath(args.output))

    pairs = {}
    for name in names:
        failures = []
        entry = dict(by_name.get(name, {"name": name}))
        separate, steps, warmup = separate_mode(args.raw, name, failures)
        entry.update(steps=steps, warmup=warmup, fix=find_fix(name), separate=separate,
                     inprocess=inprocess_mode(args.raw, name, failures),
                     recordings=recordings(args.raw, name, out_dir), failures=failures)
        meta = os.path.join(args.raw, name + ".meta.json")
        if os.path.exists(meta):
            with open(meta) as f:
                try:
                    entry["run"] = json.load(f)
                except ValueError:
                    pass
        pairs[name] = entry
        sep, inp = separate, entry["inprocess"]

        def fmt(mode):
            if mode in (None, "n/a"):
                return str(mode)
            if mode.get("saving_step_s") is None:
                return "no data"
            return "%.3f -> %.3f ms, saves %.3f ms (%.1f %%)" % (
                mode["median_before_s"] * 1e3, mode["median_after_s"] * 1e3,
                mode["saving_step_s"] * 1e3, 100 * (mode["share"] or 0))
        print("%-28s separate: %s; in-process: %s%s" % (
            name, fmt(sep), fmt(inp), "; %d failed runs" % len(failures) if failures else ""))

    with open(args.output, "w") as f:
        json.dump({"format": "stallscope-corpus-timings", "version": 1, "pairs": pairs}, f, indent=1)
        f.write("\n")
    print("wrote %s (%d pairs)" % (args.output, len(pairs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
