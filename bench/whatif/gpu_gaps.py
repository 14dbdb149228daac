#!/usr/bin/env python3
"""The GPU's idle gaps in recorded sessions, split by what ended them (bench/whatif pairs):
  gpu_gaps.py SESSION...
Per stream, consecutive kernels' gaps (start - previous end) are *restarts* when a host-blocking
sync returned inside the gap (the stream ran dry and the host launched again) and *queued*
otherwise. Prints count, median, mean and p90 of each, the restarts' time beyond twice their
median (pauses), and the median kernel duration after a restart and after a queued gap (is a
kernel slower back to back?). What the what-if replay credits a removed sync with is about a
restart minus a queued gap."""
import argparse
import bisect
import sqlite3
import statistics


def stats(values):
    if not values:
        return "none"
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return "n %d, median %.2f us, mean %.2f us, p90 %.2f us" % (
        len(values), statistics.median(values) / 1e3, statistics.fmean(values) / 1e3, p90 / 1e3)


def gaps(path):
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    meta = dict(db.execute("select key, value from meta"))
    sync_ends = sorted(row[0] for row in db.execute("select end_ns from syncs where kind != 4"))
    restarts, queued, after_restart, after_queued = [], [], [], []
    for (stream,) in db.execute("select distinct stream_id from kernels"):
        rows = db.execute("select start_ns, end_ns from kernels where stream_id = ? "
                          "order by start_ns", (stream,)).fetchall()
        for (_, previous_end), (start, end) in zip(rows, rows[1:]):
            gap = start - previous_end
            if gap < 0:
                continue
            i = bisect.bisect_left(sync_ends, previous_end)
            if i < len(sync_ends) and sync_ends[i] <= start:
                restarts.append(gap)
                after_restart.append(end - start)
            else:
                queued.append(gap)
                after_queued.append(end - start)
    median = statistics.median(restarts) if restarts else 0
    pauses = sum(g - 2 * median for g in restarts if g > 2 * median)
    print(path)
    print("  recorder cost in meta: restart %s ns, launch %s ns" % (
        meta.get("recorder_restart_overhead_ns", "-"), meta.get("recorder_launch_overhead_ns", "-")))
    print("  restarts: %s; beyond 2x median: %.3f ms" % (stats(restarts), pauses / 1e6))
    print("  queued:   %s" % stats(queued))
    print("  kernel after a restart: %s" % stats(after_restart))
    print("  kernel after a queued gap: %s" % stats(after_queued))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("sessions", nargs="+")
    for path in parser.parse_args().sessions:
        gaps(path)


if __name__ == "__main__":
    main()
