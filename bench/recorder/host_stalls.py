#!/usr/bin/env python3
"""Kernel launches that stalled the program's thread, in recorded sessions
(bench/recorder/buffer_zeroing_ab.sh, bench/whatif/recorder_pauses.sh):
  host_stalls.py [--threshold-us N] SESSION...
Per session: who zeroed CUPTI's buffers (meta recorder_buffer_zeroing) and the kernel launches
(cudaLaunchKernel*, cuLaunchKernel*) that took longer than the threshold (default 1000 us), from
the first kernel on (process start-up excluded): counted, summed, when each began, and how many
were the first launch of their kernel. A launch returns in microseconds unless the launch queue is
full (never on a loop that syncs every step) or it is its kernel's first: CUDA loads a module on
its first use (lazy loading), which takes milliseconds with or without the recorder. A long launch
that is not a kernel's first is the recorder (or CUPTI) holding the thread."""
import argparse
import sqlite3


def stalls(path, threshold_ns):
    """(zeroing, launch count, [(duration, offset from the first kernel, is the kernel's first)])"""
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    zeroing = db.execute("select value from meta where key = 'recorder_buffer_zeroing'").fetchone()
    first_kernel = db.execute("select min(start_ns) from kernels").fetchone()[0] or 0
    launches = db.execute(
        "select a.end_ns - a.start_ns, a.start_ns - ?, a.correlation_id "
        "from api_calls a join strings s on s.id = a.name_id "
        "where a.start_ns >= ? and (s.text like 'cudaLaunchKernel%' or s.text like "
        "'cuLaunchKernel%')", (first_kernel, first_kernel)).fetchall()
    # Each kernel name's first run, once (a per-launch subquery is quadratic on big sessions).
    first_runs = set(db.execute("select name_id, min(start_ns) from kernels group by name_id"))
    long_launches = []
    for duration, offset, correlation in launches:
        if duration <= threshold_ns:
            continue
        kernel = db.execute("select name_id, start_ns from kernels where correlation_id = ?",
                            (correlation,)).fetchone()
        long_launches.append((duration, offset, kernel is not None and tuple(kernel) in first_runs))
    return zeroing[0] if zeroing else "cupti (not recorded)", len(launches), long_launches


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threshold-us", type=float, default=1000)
    parser.add_argument("sessions", nargs="+")
    args = parser.parse_args()
    threshold_ns = int(args.threshold_us * 1000)
    print("| session | buffers zeroed by | launches | launches > %g µs | of them a kernel's first |"
          " their total ms | longest ms | at (ms after the first kernel; * not a kernel's first) |"
          % args.threshold_us)
    print("|---|---|---|---|---|---|---|---|")
    for path in args.sessions:
        zeroing, count, long_launches = stalls(path, threshold_ns)
        durations = [duration for duration, _, _ in long_launches]
        print("| %s | %s | %d | %d | %d | %.1f | %.1f | %s |" % (
            path, zeroing, count, len(long_launches),
            sum(1 for _, _, first in long_launches if first), sum(durations) / 1e6,
            max(durations, default=0) / 1e6,
            " ".join("%.0f%s" % (offset / 1e6, "" if first else "*")
                     for _, offset, first in long_launches)))


if __name__ == "__main__":
    main()
