#!/usr/bin/env python3
"""Checks a session recorded from torch_sampling.py: meta says sampling was on; host_samples hold
at least STEPS samples whose innermost script frame is the `sleep` MARK line (in load_batch) and
some at the `spin` MARK line (in collate), all of the main thread. Qt-free: runs on the GPU machine.
Usage: check_sampling.py SESSION SCRIPT   (exit 0 = pass)"""
import os
import sys

from session_check import open_session, report, script_marks


def main():
    session, script = sys.argv[1], os.path.abspath(sys.argv[2])
    marks, steps = script_marks(script)
    db, meta, failures = open_session(session)
    print("sampling:", meta.get("sampling"), meta.get("sample_hz"), "Hz; ticks",
          meta.get("sampler_ticks"), "samples", meta.get("sampler_samples"), "tick mean ns",
          meta.get("sampler_tick_mean_ns"), "max", meta.get("sampler_tick_max_ns"))
    if meta.get("sampling") != "on":
        failures.append("sampling is %r, not on" % meta.get("sampling"))
    innermost = {}
    for stack_id, file, function, line in db.execute(
            "select sf.stack_id, f.file, f.function, f.line from stack_frames sf join frames f "
            "on f.id = sf.frame_id where f.kind = 2 order by sf.stack_id, sf.position"):
        if stack_id not in innermost and file and os.path.abspath(file) == script:
            innermost[stack_id] = (function, line)
    by_line, threads = {}, set()
    for thread, stack_id, samples in db.execute(
            "select t.tid, s.stack_id, s.samples from host_samples s join threads t on t.id = "
            "s.thread_id"):
        key = innermost.get(stack_id)
        by_line[key] = by_line.get(key, 0) + samples
        if key:
            threads.add(thread)
    print("samples by innermost script frame (function, line):")
    for key, count in sorted(by_line.items(), key=lambda x: -x[1])[:10]:
        print("   ", key, count)
    expected = {"sleep": ("load_batch", steps), "spin": ("collate", 1)}
    for mark, (function, least) in expected.items():
        count = by_line.get((function, marks[mark]), 0)
        print("MARK %-6s line %3d in %s: %d samples" % (mark, marks[mark], function, count))
        if count < least:
            failures.append("%s (line %d): %d samples, expected >= %d" % (mark, marks[mark], count,
                                                                          least))
    pid = db.execute("select pid from processes").fetchone()[0]
    if threads != {pid}:
        failures.append("script lines sampled on threads %s, expected the main thread %d" %
                        (sorted(threads), pid))
    return report(failures)


if __name__ == "__main__":
    sys.exit(main())
