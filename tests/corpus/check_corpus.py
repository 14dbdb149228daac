#!/usr/bin/env python3
"""The recorded corpus sessions that fit in the repository, held against their measured savings
(issue 38; bench/corpus/README.md). For each entry of data/expected.json: the recording of the
pair's "before" program (data/<session>, xz-compressed) goes through the default
`stallscope --insights --json` (no window, no option: what a user reads); the card of the fix is
the first insight at the pair's FIX line (or of its FIX rule); its step saving and severity are
held against the saving measured on the GPU (bench/RESULTS.md):
  holds = predicted / measured within [0.80, 1.25], or, for a fix that measured < 5 % of the
          step, no card or a LOW one under 5 % of the step.
A pair recorded as holding that no longer holds fails the test; a recorded miss that now holds
is reported (update expected.json). Usage: check_corpus.py STALLSCOPE [DATA_DIR]"""
import json
import lzma
import os
import subprocess
import sys
import tempfile

LOW_SHARE = 0.05
RATIO = (0.80, 1.25)


def card(report, entry):
    for rank, insight in enumerate(report.get("insights", [])):
        if "rule" in entry:
            if insight.get("rule") == entry["rule"]:
                return rank, insight
            continue
        for place in (insight.get("site", {}), insight.get("site", {}).get("library") or {}):
            if place.get("line") == entry["line"] and \
                    os.path.basename(str(place.get("file", ""))) == entry["file"]:
                return rank, insight
    return None, None


def verdict(insight, entry):
    """(holds, predicted step saving in ns, text)"""
    measured = entry["measured_step_ns"]
    small = entry["measured_share"] < LOW_SHARE
    if insight is None:
        return small, 0, "no card"
    predicted = insight.get("step_savings_ns", 0)
    text = "%s, %.3f ms a step (%.1f %%)" % (insight["severity"], predicted / 1e6,
                                             100 * insight["share"])
    if small:
        return insight["severity"] == "LOW" and insight["share"] < LOW_SHARE, predicted, text
    ratio = predicted / measured if measured > 0 else float("inf")
    return RATIO[0] <= ratio <= RATIO[1], predicted, text + ", %.2f× measured" % ratio


def main():
    stallscope = sys.argv[1]
    data = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "data")
    with open(os.path.join(data, "expected.json")) as f:
        entries = json.load(f)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    regressions, held = [], 0
    with tempfile.TemporaryDirectory() as scratch:
        for entry in entries:
            session = os.path.join(scratch, entry["session"].removesuffix(".xz"))
            with lzma.open(os.path.join(data, entry["session"])) as packed, \
                    open(session, "wb") as out:
                out.write(packed.read())
            run = subprocess.run([stallscope, "--insights", "--json", session], env=env,
                                 capture_output=True, text=True)
            if run.returncode != 0:
                regressions.append("%s: stallscope exit %d: %s" % (entry["pair"], run.returncode,
                                                                   run.stderr.strip()))
                continue
            rank, insight = card(json.loads(run.stdout), entry)
            holds, _, text = verdict(insight, entry)
            held += holds
            print("%-28s measured %.3f ms a step (%.1f %%); card %s: %s -> %s%s" % (
                entry["pair"], entry["measured_step_ns"] / 1e6, 100 * entry["measured_share"],
                "-" if rank is None else "#%d" % (rank + 1), text,
                "holds" if holds else "misses",
                "" if holds == entry["holds"] else " (recorded: %s)" %
                ("holds" if entry["holds"] else "misses")))
            if entry["holds"] and not holds:
                regressions.append("%s no longer holds: %s" % (entry["pair"], text))
    print("held: %d of %d pairs" % (held, len(entries)))
    for line in regressions:
        print("REGRESSION: " + line)
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
