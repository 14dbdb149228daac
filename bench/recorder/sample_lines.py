#!/usr/bin/env python3
"""Sync sites of a session by innermost Python frame in a user script (not site-packages/torch):
count, kinds, blocked ms. Usage: sample_lines.py SESSION"""
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
frames = {}
for stack_id, kind, file, function, line in db.execute(
        "select sf.stack_id, f.kind, f.file, f.function, f.line from stack_frames sf "
        "join frames f on f.id = sf.frame_id order by sf.stack_id, sf.position"):
    frames.setdefault(stack_id, []).append((kind, file, function, line))
sites = {}
for kind, stack_id, blocked in db.execute("select kind, stack_id, end_ns - start_ns from syncs"):
    user = next((f for f in frames.get(stack_id, []) if f[0] == 2 and f[1]
                 and "site-packages" not in f[1] and "/torch/" not in f[1] and not f[1].startswith("<")), None)
    key = "%s:%d %s" % (user[1].split("/")[-1], user[3], user[2]) if user else "(no user Python frame)"
    s = sites.setdefault(key, [0, set(), 0])
    s[0] += 1
    s[1].add(kind)
    s[2] += blocked
for key, (count, kinds, blocked) in sorted(sites.items(), key=lambda x: -x[1][2]):
    print("  %-45s syncs %5d  kinds %-10s blocked %.1f ms" % (key, count, sorted(kinds), blocked / 1e6))
