#!/usr/bin/env python3
"""Checks a session recorded from torch_syncs.py: every MARK line of the script (.item(),
torch.cuda.synchronize(), .cpu()) is the innermost script frame of at least STEPS syncs, the Python
frames carry exact lines, and capture cost is in meta. Qt-free: runs on the GPU machine.
Usage: check_python_syncs.py SESSION SCRIPT   (exit 0 = pass)"""
import os
import sys

from session_check import KIND_NAMES, open_session, report, script_marks


def main():
    session, script = sys.argv[1], os.path.abspath(sys.argv[2])
    marks, steps = script_marks(script)
    db, meta, failures = open_session(session)
    print("python:", meta.get("python_version"), meta.get("python_frames"),
          " python capture median/p90 ns:", meta.get("python_capture_median_ns"),
          meta.get("python_capture_p90_ns"), " captures:", meta.get("python_capture_count"),
          " native median ns:", meta.get("stack_capture_median_ns"))
    frames = {}
    for stack_id, position, kind, file, function, line in db.execute(
            "select sf.stack_id, sf.position, f.kind, f.file, f.function, f.line from stack_frames sf "
            "join frames f on f.id = sf.frame_id order by sf.stack_id, sf.position"):
        frames.setdefault(stack_id, []).append((kind, file, function, line))
    by_line = {}
    with_python = 0
    rows = db.execute("select kind, stack_id, end_ns - start_ns from syncs where stack_id is not null").fetchall()
    for kind, stack_id, blocked in rows:
        stack = frames.get(stack_id, [])
        if any(f[0] == 2 for f in stack):
            with_python += 1
        user = next((f for f in stack if f[0] == 2 and f[1] and os.path.abspath(f[1]) == script), None)
        key = (user[2], user[3]) if user else None
        by_line.setdefault(key, {}).setdefault(KIND_NAMES.get(kind, kind), 0)
        by_line[key][KIND_NAMES.get(kind, kind)] += 1
    print("syncs with a stack: %d, with Python frames: %d" % (len(rows), with_python))
    print("syncs by innermost script frame (function, line) -> kinds:")
    for key, kinds in sorted(by_line.items(), key=lambda x: str(x)):
        print("   ", key, kinds)
    for name, line in marks.items():
        count = sum(sum(k.values()) for key, k in by_line.items() if key and key[1] == line)
        print("MARK %-12s line %3d: %d syncs" % (name, line, count))
        if count < steps:
            failures.append("%s (line %d): %d syncs, expected >= %d" % (name, line, count, steps))
    example = next((s for s in frames.values() if any(f[0] == 2 for f in s)), None)
    if example:
        print("example merged stack (innermost first, Python frames marked py):")
        for kind, file, function, line in example[:40]:
            print("    %s %s" % ("py" if kind == 2 else "  ", "%s:%s %s" % (file, line, function) if kind == 2 else "native"))
    return report(failures)


if __name__ == "__main__":
    sys.exit(main())
