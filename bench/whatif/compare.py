#!/usr/bin/env python3
"""Compares the what-if engine's predicted saving per sync with the measured one, per pair:
  compare.py TIMINGS_JSON --stallscope PATH [--sessions DIR] [--markdown FILE]
TIMINGS_JSON comes from run_pairs.sh; each pair's recorded "before" session (<pair>.stallscope,
in DIR, default TIMINGS_JSON's folder) goes through `stallscope --insights --json`.
  measured saving per sync  = the median of the rounds' (before - after), or where the rounds ran
                              in separate processes (median before - median after), over
                              (iterations x syncs_per_iteration)
  predicted saving per sync = savings_ns / count of the insight at the pair's SYNC-SITE line
  (the largest savings_ns when several insights name that site), over the recorded run's timed
  loop (--window: its last loop_s seconds of GPU work). A pair whose finding has no sync site
  (a "FINDING: <rule>" line, syncs_per_iteration 0: launch_bound_graph) is held per iteration:
  its insight is the largest of that rule, its saving over the timed loop / iterations.
one row per recording, then per pair the number of recordings within +-25 % and the median
recording's prediction against the measured saving. Where each recording's process timed its own
rounds after the recording ended (run_pairs.sh SAME_PROCESS=1), every recording is held against its
own rounds, and the pair's ratio is the median of the recordings' ratios.
  the share of the loop (a second measure, the percentage a finding's card shows):
    predicted share = the finding's share over the recorded loop (its saving over the loop
                      without the recorder's own cost, as the tool replays it)
    measured share  = measured saving per iteration / the timed "before" loop per iteration
  The recordings and the timed rounds run in separate processes, and a host runs one program at
  different speeds from one process or stretch to the next (bench/RESULTS.md, "Five recordings per
  pair"); a saving's size follows its run's speed, its share much less."""
import argparse
import json
import os
import statistics
import subprocess
import sys

TOLERANCE = 0.25  # issue 12's goal: predicted within +-25 % of measured


def report(stallscope, session, window=None):
    """stallscope's JSON report of the session (over `window`, a --window spec), or None when
    stallscope fails on it."""
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    command = [stallscope, "--insights", "--json"] + (["--window", window] if window else [])
    result = subprocess.run(command + [session], env=env, capture_output=True, text=True)
    if result.returncode != 0:
        print("%s: stallscope exit %d: %s" % (session, result.returncode, result.stderr.strip()),
              file=sys.stderr)
        return None
    return json.loads(result.stdout)


def insights(stallscope, session, loop_s=None):
    """The session's insights over the timed loop: the last `loop_s` seconds of GPU work (the
    program times its loop between two device syncs, so the loop ends with the GPU work; the
    warm-up before it is left out, as the measured times leave it out). Without loop_s: the
    active window."""
    found = report(stallscope, session)
    if found is None or loop_s is None:
        return None if found is None else found.get("insights", [])
    summary = found["summary"]
    end = summary["window"]["end_ns"] - summary["start_ns"]
    window = "%dns:%dns" % (end - int(loop_s * 1e9), end)
    found = report(stallscope, session, window)
    return None if found is None else found.get("insights", [])


def names_line(location, sync_site):
    """Whether a {file, line} (an insight's site, or its site's library frame) is the SYNC-SITE."""
    return (isinstance(location, dict) and location.get("line") == sync_site["line"]
            and str(location.get("file", "")).endswith(os.path.basename(sync_site["file"])))


def site_insight(all_insights, sync_site):
    """The insight with the largest savings_ns at the pair's sync site (of the pair's rule where
    its finding has no site), or None."""
    if "rule" in sync_site:
        matches = [insight for insight in all_insights if insight.get("rule") == sync_site["rule"]]
        return max(matches, key=lambda insight: insight.get("savings_ns", 0), default=None)
    matches = [insight for insight in all_insights
               if names_line(insight.get("site"), sync_site)
               or names_line(insight.get("site", {}).get("library"), sync_site)]
    return max(matches, key=lambda insight: insight.get("savings_ns", 0), default=None)


def compare_pair(name, entry, insight, recording):
    """The numbers of one recording's table rows (times in seconds; None where unknown). `insight`
    is the site's insight, None when the session has none there, False when it was not analysed."""
    iterations, per_iteration = entry["iterations"], entry["syncs_per_iteration"]
    # A pair whose finding is not a sync (syncs_per_iteration 0) is held per iteration, and so is
    # its finding's saving: its "per sync" columns are per iteration.
    per_iteration = per_iteration or 1
    by_rule = "rule" in entry["sync_site"]
    # The recording's own rounds where its process timed them after the recording ended
    # (SAME_PROCESS=1), else the pair's.
    timed = recording.get("rounds") or entry
    before, after = timed["median_before_s"], timed["median_after_s"]
    # The median of the per-round differences where the rounds paired the variants up (in one
    # process: noise that lasts seconds cancels), else the difference of the medians.
    measured_total = timed.get("median_difference_s")
    if measured_total is None:
        measured_total = before - after
    recorded = recording.get("recorded") or {}
    recorded_per_iter = (recorded["loop_s"] / recorded["iterations"]
                         if recorded.get("loop_s") and recorded.get("iterations") else None)
    row = {"pair": name, "session": recording["session"], "own_rounds": timed is not entry,
           "before_per_iter": before / iterations, "after_per_iter": after / iterations,
           "recorded_per_iter": recorded_per_iter,
           "measured_per_sync": measured_total / (iterations * per_iteration),
           "recorded_syncs": (iterations + entry.get("warmup", 0)) * per_iteration,
           "predicted_per_sync": None, "predicted_total": None, "count": None, "rule": None,
           "analysed": insight is not False}
    predicted_share = None
    if insight and insight.get("count"):
        count = iterations if by_rule else insight["count"]
        row.update(predicted_per_sync=insight["savings_ns"] * 1e-9 / count,
                   predicted_total=insight["savings_ns"] * 1e-9, count=insight["count"],
                   rule=insight.get("rule"))
        predicted_share = insight.get("share")
    # What the timed loop's saving would be over the recorded run's syncs (it also ran the warm-up).
    row["measured_total_recorded"] = row["measured_per_sync"] * row["recorded_syncs"]
    row["ratio"] = ratio(row["predicted_per_sync"], row["measured_per_sync"])
    row["predicted_share"] = predicted_share
    row["measured_share"] = row["measured_per_sync"] * per_iteration / row["before_per_iter"]
    row["share_ratio"] = ratio(row["predicted_share"], row["measured_share"])
    # The fixed loop the recording predicts (its loop without the recorder's cost, savings / share,
    # less the saving), against the timed "after": free of the difference between the recording's
    # host and the timed rounds'.
    row["predicted_after_per_iter"] = (
        row["predicted_total"] * (1 / predicted_share - 1) / iterations
        if predicted_share and row["predicted_total"] is not None else None)
    return row


def ratio(predicted, measured):
    return predicted / measured if predicted is not None and measured > 0 else None


def within(value):
    return "n/a" if value is None else ("yes" if abs(value - 1) <= TOLERANCE else "no")


def pair_summary(rows, predicted_key, measured_key, ratio_key):
    """Per pair: how many recordings predicted within the tolerance, and the median recording's
    prediction against the measured value (the median of several recordings, like the measured
    median of several rounds, is not one stretch of a machine that runs at two speeds). The keys
    name the measure: the saving per sync or the share of the loop."""
    summary = []
    for name in dict.fromkeys(r["pair"] for r in rows):
        mine = [r for r in rows if r["pair"] == name]
        predicted = [r[predicted_key] for r in mine if r[predicted_key] is not None]
        median = statistics.median(predicted) if predicted else None
        ratios = [r[ratio_key] for r in mine]
        if any(r["own_rounds"] for r in mine):
            # Each recording has its own measured value: the median measured, and the median of
            # the recordings' ratios (each of one process at one speed).
            measured = statistics.median(r[measured_key] for r in mine)
            known = [value for value in ratios if value is not None]
            pair_ratio = statistics.median(known) if known else None
        else:
            measured = mine[0][measured_key]
            pair_ratio = ratio(median, measured)
        summary.append({"pair": name, "recordings": len(mine), "measured": measured,
                        "within": sum(1 for r in mine if within(r[ratio_key]) == "yes"),
                        "median_predicted": median, "ratio": pair_ratio, "ratios": ratios})
    return summary


def summary_table(rows, title, what, keys, fmt):
    """The markdown lines of one per-pair table (pair_summary's `keys`, values shown by `fmt`)."""
    lines = ["", title, "",
             "| pair | recordings within ±25 %% | measured %s | median predicted %s"
             " | predicted/measured | within ±25 %%? | every recording's ratio |" % (what, what),
             "|---|---|---|---|---|---|---|"]
    for s in pair_summary(rows, *keys):
        lines.append("| %s | %d of %d | %s | %s | %s | %s | %s |" % (
            s["pair"], s["within"], s["recordings"], fmt(s["measured"]),
            fmt(s["median_predicted"]), fmt_ratio(s["ratio"]), within(s["ratio"]),
            ", ".join(fmt_ratio(value) for value in s["ratios"])))
    return lines


def fmt_ms(seconds):
    return "n/a" if seconds is None else "%.3f ms" % (seconds * 1e3)


def fmt_us(seconds):
    return "n/a" if seconds is None else "%.1f µs" % (seconds * 1e6)


def fmt_percent(share):
    return "n/a" if share is None else "%.1f %%" % (share * 100)


def fmt_ratio(value):
    return "n/a" if value is None else "%.3g" % value


def markdown(rows):
    lines = ["| pair | recording | loop before (ms/iter) | after | recorded loop"
             " | measured saving per sync | predicted per sync | predicted/measured"
             " | within ±25 %? | predicted after (loop without the recorder - saving) | vs after |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        predicted = (fmt_us(r["predicted_per_sync"]) if r["count"]
                     else "no finding" if r["analysed"] else "stallscope failed")
        after_error = (None if r["predicted_after_per_iter"] is None
                       else r["predicted_after_per_iter"] / r["after_per_iter"] - 1)
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["pair"], r["session"], fmt_ms(r["before_per_iter"]), fmt_ms(r["after_per_iter"]),
            fmt_ms(r["recorded_per_iter"]), fmt_us(r["measured_per_sync"]), predicted,
            fmt_ratio(r["ratio"]), within(r["ratio"]),
            fmt_ms(r["predicted_after_per_iter"]),
            "n/a" if after_error is None else "%+.1f %%" % (100 * after_error)))
    lines += summary_table(rows, "Per pair (the median recording's prediction):", "per sync",
                           ("predicted_per_sync", "measured_per_sync", "ratio"), fmt_us)
    lines += summary_table(rows, "Per pair, the share of the loop the fix saves (predicted: the"
                           " finding's, of the recorded loop without the recorder's cost;"
                           " measured: of the timed \"before\" loop):", "share",
                           ("predicted_share", "measured_share", "share_ratio"), fmt_percent)
    lines += ["", "Totals over the recorded run (the tool's count may differ from the program's):", "",
              "| pair | recording | rule | syncs counted by the tool | syncs in the recorded run"
              " | predicted total | measured total (per sync × recorded syncs) |",
              "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| %s | %s | %s | %s | %d | %s | %s |" % (
            r["pair"], r["session"], r["rule"] or "n/a",
            r["count"] if r["count"] is not None else "n/a", r["recorded_syncs"],
            fmt_ms(r["predicted_total"]), fmt_ms(r["measured_total_recorded"])))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("timings")
    parser.add_argument("--stallscope", required=True, help="the stallscope executable")
    parser.add_argument("--sessions", help="folder of <pair>.stallscope (default: the timings' folder)")
    parser.add_argument("--markdown", help="also write the tables to this file")
    args = parser.parse_args()
    with open(args.timings) as f:
        timings = json.load(f)
    sessions = args.sessions or os.path.dirname(os.path.abspath(args.timings))
    rows = []
    for name, entry in timings["pairs"].items():
        if entry["median_before_s"] is None or entry["median_after_s"] is None:
            print("%s: no timings, skipped" % name, file=sys.stderr)
            continue
        # Timings from before 2026-11-27 name only their first recording ("session", "recorded").
        recordings = entry.get("recordings") or [
            {"session": entry["session"], "recorded": entry.get("recorded")}]
        for recording in recordings:
            path = os.path.join(sessions, recording["session"])
            if not os.path.exists(path):
                print("%s: missing, skipped" % path, file=sys.stderr)
                continue
            loop_s = (recording.get("recorded") or {}).get("loop_s")
            found = insights(args.stallscope, path, loop_s)
            insight = False if found is None else site_insight(found, entry["sync_site"])
            if insight is None and found:
                # A binary built from an older source names another line than the SYNC-SITE now has.
                sites = ["%s:%s" % (os.path.basename(str(i.get("site", {}).get("file", "?"))),
                                    i.get("site", {}).get("line", "?")) for i in found[:3]]
                print("%s: no finding at %s:%d; the largest are at %s" % (
                    path, os.path.basename(entry["sync_site"]["file"]), entry["sync_site"]["line"],
                    ", ".join(sites)), file=sys.stderr)
            rows.append(compare_pair(name, entry, insight, recording))
    table = markdown(rows)
    print(table, end="")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table)


if __name__ == "__main__":
    main()
