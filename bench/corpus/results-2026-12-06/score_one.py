"""Scores one recording per pair (score_dev.py's /tmp/scorework/scored.json, from the default
`stallscope --insights --json`), hold-out and tuning halves apart, as report.py does for two:
holds = predicted / measured within [0.80, 1.25], or, for a fix measured under 5 % of the step,
no card or a LOW one. TIMED_ON names the calls whose timings come from the recording's machine;
the others are marked (timed on another GPU). With --like-for-like, a row counts as the
recording's own machine only when the pair's recording and its timings come from the same device
call (r["corpus"] == r["timed"] in scored.json); the others are marked with the two calls, and the
held count is also given over those rows alone (the second H100 session, results-2026-12-06b).
Usage: python3 score_one.py [--like-for-like] [SCORED_JSON]"""
import json
import statistics
import sys

LIKE_FOR_LIKE = "--like-for-like" in sys.argv[1:]
ARGS = [a for a in sys.argv[1:] if a != "--like-for-like"]
SCORED = ARGS[0] if ARGS else "/tmp/scorework/scored.json"
TIMED_ON = {"corpus11", "corpus12"}  # the H100 calls of 2026-12-06 (the recordings' machine)
manifest = json.load(open("bench/corpus/manifest.json"))
holdout = {p["name"] for p in manifest if p["holdout"]}
scored = json.load(open(SCORED))


def half(title, names):
    rows, held, errors, low_big, high_small = [], 0, [], [], []
    lfl_n, lfl_held, lfl_errors, others = 0, 0, [], []
    for name in sorted(names):
        r = scored[name]
        before, after = statistics.median(r["before"]), statistics.median(r["after"])
        measured, share = before - after, (before - after) / before
        rec = r["recs"][0]
        pred = rec["pred"] or 0.0
        card = rec["card"]
        sev = card["sev"] if card else "–"
        if share < 0.05:
            ok = card is None or sev == "LOW"
            verdict = "meas < 5 %%; %s" % ("no card" if card is None else sev)
        else:
            ratio = pred / measured
            ok = 0.80 <= ratio <= 1.25
            errors.append(abs(ratio - 1))
            verdict = "%.2f×" % ratio
        if share >= 0.10 and (card is None or sev == "LOW"):
            low_big.append(name)
        if share < 0.05 and card is not None and sev != "LOW":
            high_small.append(name)
        held += ok
        if LIKE_FOR_LIKE:
            like = r["corpus"] == r["timed"]
            if like:
                lfl_n += 1
                lfl_held += ok
                if share >= 0.05:
                    lfl_errors.append(abs(pred / measured - 1))
            else:
                others.append(name)
            same = "" if like else " (not like-for-like: recorded in %s, timed in %s)" % (
                r["corpus"], r["timed"])
        else:
            same = "" if r["timed"] in TIMED_ON else " (timed on the H200)"
        rows.append("| `%s` | %.3f ms (%.1f %%)%s | %.1f µs | %s | %s | %s |" % (
            name, measured * 1e3, share * 100, same, pred * 1e6, sev, verdict,
            "**yes**" if ok else "no"))
    print("### %s\n" % title)
    print("| pair | measured saving / step | predicted / step | severity | pred ÷ meas | holds |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    print("\n* held: **%d / %d**; median |pred/meas − 1| over pairs ≥ 5 %%: %.2f (%d pairs)" % (
        held, len(names), statistics.median(errors) if errors else float("nan"), len(errors)))
    if LIKE_FOR_LIKE:
        print("* like-for-like rows only (recorded and timed in the same call): held **%d / %d**; "
              "median |pred/meas − 1| over pairs ≥ 5 %%: %.2f (%d pairs)" % (
                  lfl_held, lfl_n, statistics.median(lfl_errors) if lfl_errors else float("nan"),
                  len(lfl_errors)))
        print("* not like-for-like: %s" % (", ".join(others) or "none"))
    print("* fixes worth ≥ 10 %% rated LOW or without a card: %s" % (", ".join(low_big) or "none"))
    print("* fixes worth < 5 %% rated above LOW: %s\n" % (", ".join(high_small) or "none"))


half("Hold-out half", holdout)
half("Tuning half", set(scored) - holdout)
