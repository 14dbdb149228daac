#!/usr/bin/env python3
"""Whether a recording's correlation ids stayed distinct after the recorder switched CUPTI's
collection off and on (the overhead probe's stretches, meta recorder_overhead_probe; capture
control's intervals): for each session, the API calls recorded after the first stretch and how
many distinct correlation ids they carry, and the recorded calls that straddle the stretch's
start or end (entered while the API records were off, left after they came back on).

    python3 bench/recorder/correlation_check.py SESSION...

Findings are in bench/RESULTS.md ("Issue 38, item 4")."""
import sqlite3
import sys


def stretches(db):
    meta = dict(db.execute("select key, value from meta"))
    probe = meta.get("recorder_overhead_probe", "")
    offs = [tuple(int(x) for x in part[4:].split(",")) for part in probe.split(";")
            if part.startswith("off=")]
    if offs:
        return [(o[0], o[1]) for o in offs], probe.split(";")[0]
    # Capture control: the gaps between its intervals.
    intervals = db.execute("select start_ns, end_ns from capture_intervals "
                           "where end_ns is not null order by start_ns").fetchall()
    return [(a[1], b[0]) for a, b in zip(intervals, intervals[1:])], "capture intervals"


def main():
    for path in sys.argv[1:]:
        db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        gaps, what = stretches(db)
        if not gaps:
            print("%s: no stretch off" % path)
            continue
        start, end = gaps[0]
        straddle_start = db.execute("select count(*) from api_calls where start_ns < ? and "
                                    "end_ns > ?", (start, start)).fetchone()[0]
        straddle_end = db.execute("select count(*) from api_calls where start_ns < ? and "
                                  "end_ns > ?", (end, end)).fetchone()[0]
        calls, ids = db.execute("select count(*), count(distinct correlation_id) from api_calls "
                                "where start_ns >= ?", (end,)).fetchone()
        kernels, kernel_ids = db.execute("select count(*), count(distinct correlation_id) from "
                                         "kernels where start_ns >= ?", (end,)).fetchone()
        verdict = "ok" if calls == ids and kernels == kernel_ids and kernels > 0 else "BROKEN"
        print("%s (%s): straddling the first stretch's start %d, end %d; after it %d API calls "
              "with %d ids, %d kernels with %d ids: %s" % (
                  path, what, straddle_start, straddle_end, calls, ids, kernels, kernel_ids,
                  verdict))


if __name__ == "__main__":
    main()
