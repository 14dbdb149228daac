#!/usr/bin/env python3
"""Kernel launches that stalled the program's thread, in recorded sessions
(bench/recorder/buffer_zeroing_ab.sh):
  host_stalls.py [--threshold-us N] SESSION...
Per session: who zeroed CUPTI's buffers (meta recorder_buffer_zeroing) and the kernel launches
(cudaLaunchKernel*, cuLaunchKernel*) that took longer than the threshold (default 1000 us),
counted and summed from the first kernel on (process start-up excluded). A launch returns in
microseconds unless the launch queue is full; on a loop that syncs every step it never is, so a
launch of milliseconds there is the recorder (or CUPTI) holding the thread."""
import argparse
import sqlite3


def stalls(path, threshold_ns):
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    zeroing = db.execute("select value from meta where key = 'recorder_buffer_zeroing'").fetchone()
    first_kernel = db.execute("select min(start_ns) from kernels").fetchone()[0] or 0
    launches = db.execute(
        "select a.end_ns - a.start_ns from api_calls a join strings s on s.id = a.name_id "
        "where a.start_ns >= ? and (s.text like 'cudaLaunchKernel%' or s.text like "
        "'cuLaunchKernel%')", (first_kernel,)).fetchall()
    long_launches = [duration for (duration,) in launches if duration > threshold_ns]
    return zeroing[0] if zeroing else "cupti (not recorded)", len(launches), long_launches


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threshold-us", type=float, default=1000)
    parser.add_argument("sessions", nargs="+")
    args = parser.parse_args()
    threshold_ns = int(args.threshold_us * 1000)
    print("| session | buffers zeroed by | launches | launches > %g µs | their total ms | longest ms |"
          % args.threshold_us)
    print("|---|---|---|---|---|---|")
    for path in args.sessions:
        zeroing, count, long_launches = stalls(path, threshold_ns)
        print("| %s | %s | %d | %d | %.1f | %.1f |" % (
            path, zeroing, count, len(long_launches), sum(long_launches) / 1e6,
            max(long_launches, default=0) / 1e6))


if __name__ == "__main__":
    main()
