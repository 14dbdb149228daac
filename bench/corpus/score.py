#!/usr/bin/env python3
"""Scores Stallscope's predictions against the corpus's measured savings.

    python3 bench/corpus/score.py OUT/timings.json --stallscope build/dev/app/stallscope \
        [--sessions DIR] [--markdown FILE] [--json FILE] [--measured auto|separate|inprocess]

For each recording of each pair (timings.json from bench/corpus/collect.py; sessions in
--sessions, default timings.json's folder) it runs `stallscope --insights --json SESSION` with no
other option (the default report a user reads; QT_QPA_PLATFORM=offscreen) and finds the fix's
card:
  * a pair with a `FIX:` line: the first insight, in the report's order (the order of the cards
    a user sees), whose `site` or `site.library` names the FIX file (same basename) and line;
  * a pair with `FIX-RULE: RULE`: the first insight whose `rule` is RULE.
Predicted saving per step: the card's `step_savings_ns` when the report has that field, else
`savings_ns / count` (per sync: the same as per step where the line syncs once a step), and for a
FIX-RULE card, which has no per-sync count, `savings_ns / (steps + warmup)` of the recorded run;
the table says which, and also lists `savings_ns / (steps + warmup)` for every card. Its severity, its rank among the insights and
whether it is the top card are reported; no card means a predicted saving of 0.

Per pair, over its recordings: the predicted saving is the median of the recordings'
predictions, and "the median recording" (for severity, rank and the predicted share) is the
recording at index n // 2 of the recordings sorted by predicted saving (the upper median).
Measured saving per step: the in-process rounds' median difference for Python pairs and the
separate-process median before - median after for C++ pairs (--measured auto, the default), or
the mode named by --measured; measured share = saving / the before step of the same mode.

A pair holds when
  * measured share >= 5 %: predicted / measured is within [0.80, 1.25];
  * measured share <  5 %: the median recording has no card for the fix, or a LOW one whose
    predicted share of the recorded step (predicted saving / the recorded run's step time) is
    under 5 %.
Reported separately for the hold-out half, the tuning half and all pairs: pairs held / scored,
median |predicted / measured - 1| over pairs with measured share >= 5 %, fixes worth >= 10 % of
the step rated LOW (or with no card), fixes worth < 5 % rated above LOW, and, for programs with
several findings, whether the top card is the fix. A missing session, a failing stallscope or a
pair without timings is a row that says so, not a crash.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

LOW_MAX = 0.05       # below this measured share, a pair should get no card or a LOW one
WORTH = 0.10         # a fix worth this share should not be rated LOW
TOLERANCE = (0.80, 1.25)
SEVERITY_RANK = {"INFO": 0, "LOW": 1, "MEDIUM": 2, "HIGH": 3, "CRITICAL": 4}
HERE = os.path.dirname(os.path.abspath(__file__))


def run_stallscope(stallscope, session, timeout):
    """(report dict or None, problem string or None)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    try:
        result = subprocess.run([stallscope, "--insights", "--json", session], env=env,
                                capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "stallscope timed out after %d s" % timeout
    except OSError as exc:
        return None, "stallscope could not run: %s" % exc
    if result.returncode != 0:
        tail = (result.stderr.strip().splitlines() or [""])[-1][:200]
        return None, "stallscope failed (rc %d): %s" % (result.returncode, tail)
    try:
        return json.loads(result.stdout), None
    except ValueError as exc:
        return None, "stallscope printed no JSON (%s)" % exc


def names_line(location, fix):
    return (isinstance(location, dict) and location.get("line") == fix["line"]
            and os.path.basename(str(location.get("file", ""))) == os.path.basename(fix["file"]))


def find_card(insights, fix):
    """(index, insight) of the fix's card, or (None, None)."""
    for i, insight in enumerate(insights):
        if "rule" in fix:
            if insight.get("rule") == fix["rule"]:
                return i, insight
        else:
            site = insight.get("site") or {}
            if names_line(site, fix) or names_line(site.get("library") if isinstance(site, dict) else None, fix):
                return i, insight
    return None, None


def score_recording(rec, fix, sessions_dir, stallscope, timeout, measured_before_s):
    row = {"session": rec.get("session"), "status": "ok", "card": None, "predicted_step_s": None,
           "source": None, "n_insights": None}
    path = os.path.join(sessions_dir, rec.get("session") or "")
    if not rec.get("session") or not os.path.exists(path):
        row["status"] = "missing session"
        return row
    report, problem = run_stallscope(stallscope, path, timeout)
    if problem:
        row["status"] = problem
        return row
    insights = report.get("insights") or []
    row["n_insights"] = len(insights)
    row["top_rule"] = insights[0].get("rule") if insights else None
    index, card = find_card(insights, fix)
    recorded_step = rec.get("step_s") or measured_before_s
    row["recorded_step_s"] = rec.get("step_s")
    if card is None:
        row["predicted_step_s"] = 0.0
        row["predicted_share"] = 0.0
        return row
    corpus = rec.get("corpus") or {}
    recorded_steps = (corpus.get("steps") or 0) + (corpus.get("warmup") or 0)
    # for reference: the card's total saving spread over every step the recorded run made
    row["per_recorded_step_s"] = card.get("savings_ns", 0) * 1e-9 / recorded_steps if recorded_steps else None
    if "step_savings_ns" in card:
        predicted = card["step_savings_ns"] * 1e-9
        row["source"] = "step_savings_ns"
    elif "rule" in fix:
        # a rule's finding has no per-sync count: its saving over the steps of the recorded run
        predicted = row["per_recorded_step_s"]
        row["source"] = "savings_ns/(steps+warmup)"
    elif card.get("count"):
        predicted = card.get("savings_ns", 0) * 1e-9 / card["count"]
        row["source"] = "savings_ns/count"
    else:
        predicted = None
        row["source"] = "no count"
    row["card"] = {"rank": index + 1, "rule": card.get("rule"), "severity": card.get("severity"),
                   "title": card.get("title"), "savings_ns": card.get("savings_ns"), "count": card.get("count"),
                   "step_savings_ns": card.get("step_savings_ns")}
    row["predicted_step_s"] = predicted
    row["predicted_share"] = predicted / recorded_step if predicted is not None and recorded_step else None
    return row


def measured_mode(entry, which):
    sep, inp = entry.get("separate"), entry.get("inprocess")
    usable = lambda m: isinstance(m, dict) and m.get("saving_step_s") is not None
    if which == "separate":
        return ("separate", sep) if usable(sep) else (None, None)
    if which == "inprocess":
        return ("inprocess", inp) if usable(inp) else (None, None)
    if usable(inp):
        return "inprocess", inp
    if usable(sep):
        return "separate", sep
    return None, None


def score_pair(name, entry, args, sessions_dir):
    out = {"name": name, "holdout": bool(entry.get("holdout")), "language": entry.get("language"),
           "expect_saving": entry.get("expect_saving"), "pattern": entry.get("pattern"),
           "fix": entry.get("fix"), "recordings": [], "status": "scored", "holds": None}
    mode, measured = measured_mode(entry, args.measured)
    fix = entry.get("fix") or {}
    if not fix.get("line") and "rule" not in fix:
        out["status"] = "no FIX marker"
        return out
    if measured is None:
        out["status"] = "no timings"
    else:
        out.update(mode=mode, measured_step_s=measured["saving_step_s"], measured_share=measured["share"],
                   before_step_s=measured["median_before_s"], after_step_s=measured["median_after_s"])
    for rec in entry.get("recordings") or []:
        out["recordings"].append(score_recording(rec, fix, sessions_dir, args.stallscope, args.timeout,
                                                 measured["median_before_s"] if measured else None))
    valid = [r for r in out["recordings"] if r["status"] == "ok" and r["predicted_step_s"] is not None]
    if not valid:
        if out["status"] == "scored":
            out["status"] = "no usable recording" + (
                " (%s)" % "; ".join(sorted({r["status"] for r in out["recordings"]})) if out["recordings"] else "")
        return out
    valid.sort(key=lambda r: r["predicted_step_s"])
    median_rec = valid[len(valid) // 2]
    out["predicted_step_s"] = statistics.median(r["predicted_step_s"] for r in valid)
    out["median_recording"] = median_rec["session"]
    card = median_rec["card"]
    out["severity"] = card["severity"] if card else None
    out["rank"] = card["rank"] if card else None
    out["n_insights"] = median_rec["n_insights"]
    out["predicted_share"] = median_rec.get("predicted_share")
    out["sources"] = sorted({r["source"] for r in valid if r["source"]})
    if out["status"] != "scored":
        return out
    share = out["measured_share"]
    if share is not None and share >= LOW_MAX and out["measured_step_s"] > 0:
        out["ratio"] = out["predicted_step_s"] / out["measured_step_s"]
        out["error"] = abs(out["ratio"] - 1)
        out["holds"] = TOLERANCE[0] <= out["ratio"] <= TOLERANCE[1]
    else:
        out["holds"] = card is None or (card["severity"] == "LOW" and (out["predicted_share"] or 0) < LOW_MAX)
    return out


def summarize(rows):
    scored = [r for r in rows if r["status"] == "scored"]
    big = [r for r in scored if (r.get("measured_share") or 0) >= LOW_MAX]
    several = [r for r in scored if (r.get("n_insights") or 0) >= 2]
    return {
        "pairs": len(rows), "scored": len(scored), "held": sum(bool(r["holds"]) for r in scored),
        "held_names": [r["name"] for r in scored if r["holds"]],
        "not_held_names": [r["name"] for r in scored if not r["holds"]],
        "not_run": [r["name"] for r in rows if r["status"] == "not run"],
        "not_scored": ["%s (%s)" % (r["name"], r["status"]) for r in rows if r["status"] not in ("scored", "not run")],
        "median_abs_error": statistics.median(r["error"] for r in big) if big else None,
        "worth_rated_low": [r["name"] for r in scored if (r.get("measured_share") or 0) >= WORTH
                            and r.get("severity") == "LOW"],
        "worth_without_card": [r["name"] for r in scored if (r.get("measured_share") or 0) >= WORTH
                               and r.get("severity") is None],
        "small_rated_above_low": [r["name"] for r in scored if (r.get("measured_share") or 0) < LOW_MAX
                                  and SEVERITY_RANK.get(r.get("severity") or "", 0) > SEVERITY_RANK["LOW"]],
        "several_findings": len(several),
        "top_is_fix_worth": [r["name"] for r in several if (r.get("measured_share") or 0) >= LOW_MAX and r.get("rank") == 1],
        "top_not_fix_worth": [r["name"] for r in several if (r.get("measured_share") or 0) >= LOW_MAX and r.get("rank") != 1],
        "top_is_fix_small": [r["name"] for r in several if (r.get("measured_share") or 0) < LOW_MAX and r.get("rank") == 1],
    }


def ms(x):
    return "–" if x is None else "%.3f" % (x * 1e3)


def pct(x):
    return "–" if x is None else "%.1f %%" % (100 * x)


def names(xs):
    return ", ".join(xs) if xs else "none"


def markdown(rows, summaries, args):
    out = ["# Corpus score", "",
           "Predictions of `stallscope --insights --json` (default options) against measured "
           "before/after savings per step (`bench/corpus/`). Measured: %s. A pair holds when "
           "predicted/measured is within [%.2f, %.2f], or, where the fix measured under %d %% of the "
           "step, when its card is absent or LOW with a predicted share under %d %%." % (
               {"auto": "in-process rounds for Python pairs, separate processes for C++ pairs",
                "separate": "separate processes", "inprocess": "in-process rounds"}[args.measured],
               TOLERANCE[0], TOLERANCE[1], 100 * LOW_MAX, 100 * LOW_MAX), ""]
    out += ["| | hold-out | tuning | all |", "|---|---|---|---|"]
    keys = ("holdout", "tuning", "all")
    line = lambda label, f: out.append("| %s | %s |" % (label, " | ".join(f(summaries[k]) for k in keys)))
    line("pairs held / scored", lambda s: "%d / %d" % (s["held"], s["scored"]))
    line("not run (no timings)", lambda s: str(len(s["not_run"])))
    line("run but not scored", lambda s: names(s["not_scored"]))
    line("median \\|pred/meas − 1\\| (measured ≥ 5 %)",
         lambda s: "–" if s["median_abs_error"] is None else "%.2f" % s["median_abs_error"])
    line("worth ≥ 10 % but rated LOW", lambda s: "%d: %s" % (len(s["worth_rated_low"]), names(s["worth_rated_low"])))
    line("worth ≥ 10 % but no card", lambda s: "%d: %s" % (len(s["worth_without_card"]), names(s["worth_without_card"])))
    line("worth < 5 % but rated above LOW",
         lambda s: "%d: %s" % (len(s["small_rated_above_low"]), names(s["small_rated_above_low"])))
    line("several findings: top card is the fix (measured ≥ 5 %)",
         lambda s: "%d of %d; not: %s" % (len(s["top_is_fix_worth"]), len(s["top_is_fix_worth"]) + len(s["top_not_fix_worth"]),
                                          names(s["top_not_fix_worth"])))
    line("several findings: top card is the fix (measured < 5 %)",
         lambda s: "%d: %s" % (len(s["top_is_fix_small"]), names(s["top_is_fix_small"])))
    out += ["", "| pair | half | lang | fix | before ms/step | measured saving | predicted | pred/meas | "
            "severity | rank / cards | holds |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        fix = r.get("fix") or {}
        where = ("rule " + fix["rule"]) if "rule" in fix else (
            "%s:%s" % (os.path.basename(fix["file"]), fix.get("line")) if fix.get("file") else "–")
        if r["status"] not in ("scored",) and "predicted_step_s" not in r:
            out.append("| %s | %s | %s | %s | %s | %s | %s | | | | %s |" % (
                r["name"], "hold-out" if r["holdout"] else "tuning", r["language"], where,
                ms(r.get("before_step_s")), ms(r.get("measured_step_s")), r["status"], "–"))
            continue
        out.append("| %s | %s | %s | %s | %s | %s ms (%s) | %s ms (%s) | %s | %s | %s | %s |" % (
            r["name"], "hold-out" if r["holdout"] else "tuning", r["language"], where,
            ms(r.get("before_step_s")), ms(r.get("measured_step_s")), pct(r.get("measured_share")),
            ms(r.get("predicted_step_s")), pct(r.get("predicted_share")),
            "%.2f" % r["ratio"] if r.get("ratio") is not None else "–",
            r.get("severity") or "no card", "%s / %s" % (r.get("rank") or "–", r.get("n_insights")),
            {True: "yes", False: "no", None: r["status"]}[r["holds"]]))
    out += ["", "Recordings (predicted per step; source of the prediction):", "",
            "| pair | session | status | cards | fix card | predicted ms/step | source | savings / recorded steps, ms "
            "| recorded ms/step |",
            "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        for rec in r["recordings"]:
            card = rec.get("card")
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                r["name"], rec["session"], rec["status"], rec.get("n_insights") if rec.get("n_insights") is not None else "–",
                "#%d %s %s" % (card["rank"], card["rule"], card["severity"]) if card else "none",
                ms(rec.get("predicted_step_s")), rec.get("source") or "–", ms(rec.get("per_recorded_step_s")),
                ms(rec.get("recorded_step_s"))))
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("timings")
    parser.add_argument("--stallscope", required=True)
    parser.add_argument("--sessions", help="folder of the sessions (default: the timings file's folder)")
    parser.add_argument("--markdown", help="write the report as Markdown to this file")
    parser.add_argument("--json", help="write the scored rows as JSON to this file")
    parser.add_argument("--measured", choices=("auto", "separate", "inprocess"), default="auto")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per stallscope run")
    parser.add_argument("--manifest", default=os.path.join(HERE, "manifest.json"))
    args = parser.parse_args()

    with open(args.timings) as f:
        timings = json.load(f)
    pairs = timings.get("pairs", {})
    with open(args.manifest) as f:
        manifest = json.load(f)
    sessions_dir = args.sessions or os.path.dirname(os.path.abspath(args.timings))

    rows = []
    for spec in manifest:
        name = spec["name"]
        if name not in pairs:
            rows.append({"name": name, "holdout": bool(spec.get("holdout")), "language": spec.get("language"),
                         "expect_saving": spec.get("expect_saving"), "pattern": spec.get("pattern"),
                         "fix": None, "recordings": [], "status": "not run", "holds": None})
            continue
        entry = dict(spec, **{k: v for k, v in pairs[name].items() if k not in spec})
        try:
            rows.append(score_pair(name, entry, args, sessions_dir))
        except Exception as exc:  # noqa: BLE001 -- one broken entry is a row, not a crash
            rows.append({"name": name, "holdout": bool(spec.get("holdout")), "language": spec.get("language"),
                         "fix": pairs[name].get("fix"), "recordings": [], "holds": None,
                         "status": "scoring error: %s" % exc})
        r = rows[-1]
        print("%-28s %-8s measured %s ms (%s), predicted %s ms, %s, holds: %s" % (
            name, "hold-out" if r["holdout"] else "tuning", ms(r.get("measured_step_s")), pct(r.get("measured_share")),
            ms(r.get("predicted_step_s")), r.get("severity") or "no card", r["holds"] if r["status"] == "scored"
            else r["status"]), file=sys.stderr)

    summaries = {"holdout": summarize([r for r in rows if r["holdout"]]),
                 "tuning": summarize([r for r in rows if not r["holdout"]]),
                 "all": summarize(rows)}
    text = markdown(rows, summaries, args)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "summaries": summaries}, f, indent=1)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
