#!/usr/bin/env python3
"""Prints the row counts, sync kinds, top sync sites (by stack) and recorder meta of a session."""
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
meta = dict(db.execute("select key, value from meta"))
keys = ["status", "exit_code", "duration_ns", "stack_capture_count", "stack_capture_median_ns",
        "stack_capture_p90_ns", "dropped_records", "dropped_host_events", "recorder_kinds"]
print("meta:", {k: meta.get(k) for k in keys})
for table in ["processes", "threads", "devices", "streams", "api_calls", "kernels", "memcpys",
              "memsets", "syncs", "ranges", "modules", "frames", "stacks", "diagnostics", "dropped"]:
    print("  %-12s %d" % (table, db.execute("select count(*) from " + table).fetchone()[0]))
print("syncs by kind:", db.execute(
    "select kind, count(*), round(sum(end_ns-start_ns)/1e6, 3) from syncs group by kind").fetchall())
print("syncs without stack:", db.execute("select count(*) from syncs where stack_id is null").fetchone()[0])
print("devices:", db.execute("select name, compute_major, compute_minor, sm_count, global_memory_bytes from devices").fetchall())
print("diagnostics:", db.execute("select severity, message from diagnostics limit 5").fetchall())
print("dropped:", db.execute("select source, sum(count) from dropped group by source").fetchall())
