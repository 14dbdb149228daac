#!/usr/bin/env python3
"""New recordings of the corpus's pairs scored against the pooled measured savings
(measured_spread.py): what the default card of each fresh recording says, held against every
timed round kept for that GPU kind, so a score does not rest on one call's timings.

    python3 bench/corpus/score_pooled.py STALLSCOPE SESSIONS_DIR [--gpu H100] > table.md

SESSIONS_DIR holds <pair>.rec1.stallscope (device_record.sh's sessions, unpacked). Per pair: the
card of the fix (score.py's find_card: the FIX line's first insight, or the FIX-RULE's) in the
default `stallscope --insights --json`, its saving a step and severity; the pooled measured saving
of that GPU kind (separate-process rounds; measured_spread.py). A pair holds when
  * the pooled saving is >= 5 % of the step: predicted / pooled within [0.80, 1.25];
  * it is under 5 %: no card, or a LOW one under 5 % of the recorded step;
and is "not resolved" when the pooled saving's 90 % interval is wider than that band
(measured_spread.py): it is then not scored. Hold-out and tuning halves are counted apart."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from collect import find_fix  # noqa: E402
from measured_spread import BAND, SMALL, halves, pooled_savings  # noqa: E402
from score import find_card, run_stallscope  # noqa: E402


def verdict(card, pooled, step):
    """(holds, text) of one card against a resolved pooled saving."""
    if pooled < SMALL * step:
        if card is None:
            return True, "measured < 5 %; no card"
        low = card.get("severity") == "LOW" and card.get("share", 1) < SMALL
        return low, "measured < 5 %%; %s at %.1f %%" % (card.get("severity"),
                                                       100 * card.get("share", 0))
    predicted = (card or {}).get("step_savings_ns", 0) * 1e-9
    ratio = predicted / pooled
    return BAND[0] <= ratio <= BAND[1], "%.2f×" % ratio


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    stallscope, sessions = sys.argv[1], sys.argv[2]
    gpu = sys.argv[sys.argv.index("--gpu") + 1] if "--gpu" in sys.argv else "H100"
    pooled_of = {pair: (pooled, step, ok)
                 for pair, kind, _, pooled, step, _, _, ok in pooled_savings() if kind == gpu}
    half_of = halves()
    counts = {}
    for half in ("hold-out", "tuning"):
        print("\n### %s half (%s, pooled timings)\n" % (half.capitalize(), gpu))
        print("| pair | card | predicted a step | recorded step | pooled measured | verdict |")
        print("|---|---|---|---|---|---|")
        for pair in sorted(p for p, h in half_of.items() if h == half):
            session = os.path.join(sessions, pair + ".rec1.stallscope")
            if not os.path.exists(session):
                print("| `%s` | no recording | | | | – |" % pair)
                continue
            report, problem = run_stallscope(stallscope, session, 600)
            if problem:
                print("| `%s` | %s | | | | – |" % (pair, problem))
                continue
            _, card = find_card(report.get("insights") or [], find_fix(pair))
            loop = (report.get("summary") or {}).get("loop") or {}
            rec_step = "%.3f ms" % (loop["step_ns"] / 1e6) if loop.get("step_ns") else "–"
            shown = "no card" if card is None else "%s, %.1f %%" % (card["severity"],
                                                                    100 * card.get("share", 0))
            predicted = "%.3f ms" % ((card or {}).get("step_savings_ns", 0) / 1e6)
            if pair not in pooled_of:
                print("| `%s` | %s | %s | %s | no %s timings | – |" % (pair, shown, predicted,
                                                                        rec_step, gpu))
                continue
            pooled, step, resolved = pooled_of[pair]
            measured = "%.3f ms (%.1f %%)" % (pooled * 1e3, 100 * pooled / step)
            if not resolved:
                text, holds = "not resolved", None
            else:
                holds, text = verdict(card, pooled, step)
            counts.setdefault(half, []).append(holds)
            print("| `%s` | %s | %s | %s | %s | %s%s |" % (
                pair, shown, predicted, rec_step, measured, text,
                "" if holds is None else " **holds**" if holds else " misses"))
    print()
    for half, verdicts in counts.items():
        judged = [v for v in verdicts if v is not None]
        print("* %s half: %d of %d resolved pairs hold (%d not resolved)" % (
            half, sum(judged), len(judged), len(verdicts) - len(judged)))


if __name__ == "__main__":
    main()
