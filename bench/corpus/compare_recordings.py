#!/usr/bin/env python3
"""The recordings kept in tests/corpus/data against new recordings of the same pairs, both read by
the same `stallscope --insights --json` (the default output) and held against the same measured
savings (data/expected.json): whether a recorder change, or another machine, moves the cards.

    python3 bench/corpus/compare_recordings.py STALLSCOPE NEW_DIR

NEW_DIR holds <pair>.rec1.stallscope (or .stallscope.xz), e.g. from
bench/corpus/device_rerecord_data.sh. Prints one Markdown row per pair of expected.json that has a
new recording: the old and the new card (severity, saving a step, predicted ÷ measured) and the
recorded step of each (the loop's step, as the card reads it)."""
import json
import lzma
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "tests", "corpus", "data")
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "corpus"))
from check_corpus import card, verdict  # noqa: E402  (one definition of a card and a hold)


def insights(stallscope, path, scratch):
    if path.endswith(".xz"):
        plain = os.path.join(scratch, os.path.basename(path)[:-3])
        with lzma.open(path) as packed, open(plain, "wb") as out:
            out.write(packed.read())
        path = plain
    run = subprocess.run([stallscope, "--insights", "--json", path], capture_output=True, text=True,
                         env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    if run.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (path, run.returncode, run.stderr.strip()))
    return json.loads(run.stdout)


def step_of(report):
    step = ((report.get("summary") or {}).get("loop") or {}).get("step_ns")
    return "%.3f ms" % (step / 1e6) if step else "–"


def cell(report, entry):
    _, insight = card(report, entry)
    holds, _, text = verdict(insight, entry)
    return "%s%s" % (text, " **holds**" if holds else "")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    stallscope, new_dir = sys.argv[1], sys.argv[2]
    with open(os.path.join(DATA, "expected.json")) as f:
        entries = json.load(f)
    print("| pair | measured | old recording | its step | new recording | its step |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        for entry in entries:
            new = [os.path.join(new_dir, entry["pair"] + ".rec1.stallscope" + ext)
                   for ext in ("", ".xz")]
            new = next((p for p in new if os.path.exists(p)), None)
            if new is None:
                continue
            old = insights(stallscope, os.path.join(DATA, entry["session"]), scratch)
            now = insights(stallscope, new, scratch)
            print("| `%s` (%s) | %.3f ms (%.1f %%) | %s | %s | %s | %s |" % (
                entry["pair"], entry["session"].split(".rec")[0].split(".", 1)[-1]
                if ".h100." in entry["session"] else "h200", entry["measured_step_ns"] / 1e6,
                100 * entry["measured_share"], cell(old, entry), step_of(old), cell(now, entry),
                step_of(now)))


if __name__ == "__main__":
    main()
