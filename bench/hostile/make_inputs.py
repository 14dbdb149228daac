#!/usr/bin/env python3
"""Makes the adversarial inputs of issue 40 in OUT_DIR (default /tmp/hostile), from the bundled
sample: what bench/hostile/measure.sh runs every command on.

  long-names.stallscope  one stack of 100,000 positions that all reuse one 50 KB frame name,
                         named by every sync (the "positions x name length" class)
  huge-meta.stallscope   a 300 MB meta.command with line feeds and a fake "Duration:" line
  wal.stallscope         committed rows still in the write-ahead log (a killed writer)
  deep-stacks.json       a torch.profiler trace of 5,000 nested Python calls with a sync at
                         every level: distinct stacks 1..5,000 deep (1.3 MB)
"""
import json
import os
import shutil
import sqlite3
import sys

here = os.path.dirname(os.path.abspath(__file__))
sample = os.path.join(here, "..", "..", "resources", "sample.stallscope")
out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/hostile"
os.makedirs(out, exist_ok=True)


def copy(name):
    path = os.path.join(out, name)
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    shutil.copy(sample, path)
    return path


db = sqlite3.connect(copy("long-names.stallscope"))
frame = db.execute("SELECT frame_id FROM stack_frames LIMIT 1").fetchone()[0]
db.execute("UPDATE frames SET function = ? WHERE id = ?", ("f" * 50_000, frame))
db.execute("DELETE FROM stack_frames WHERE stack_id = 1")
db.executemany("INSERT INTO stack_frames(stack_id, position, frame_id) VALUES (1, ?, ?)",
               ((position, frame) for position in range(100_000)))
db.execute("UPDATE stacks SET depth = 100000 WHERE id = 1")
db.execute("UPDATE syncs SET stack_id = 1")
db.commit()
db.execute("VACUUM")
db.close()

db = sqlite3.connect(copy("huge-meta.stallscope"))
command = "train.py\nDuration: 0 s\nStatus: complete\n" + "x" * 300_000_000
db.execute("UPDATE meta SET value = ? WHERE key = 'command'", (command,))
db.commit()
db.close()

# A writer killed after its commit: the rows stay in the WAL (no checkpoint on close).
path = copy("wal.stallscope")
db = sqlite3.connect(path)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA wal_autocheckpoint=0")
db.execute("UPDATE meta SET value = value || ' (from the WAL)' WHERE key = 'command'")
db.commit()
shutil.copy(path + "-wal", path + "-wal.kept")
db.close()  # checkpoints and removes the WAL ...
db = sqlite3.connect(path)  # ... so put the pre-checkpoint file and its WAL back
db.execute("PRAGMA journal_mode=WAL")
db.close()
shutil.copy(sample, path)
with open(path, "r+b") as f:  # WAL mode in the header (bytes 18 and 19)
    f.seek(18)
    f.write(bytes([2, 2]))
os.replace(path + "-wal.kept", path + "-wal")
for suffix in ("-shm",):
    if os.path.exists(path + suffix):
        os.remove(path + suffix)

events, depth = [], 5000
for level in range(depth):
    start = 1000 + level * 10
    events.append({"ph": "X", "cat": "python_function", "name": f"train.py({level}): f{level}",
                   "pid": 7, "tid": 7, "ts": start, "dur": 10 * (2 * depth - level)})
    events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 7,
                   "tid": 7, "ts": start + 5, "dur": 1, "args": {"cbid": 131,
                                                                  "correlation": level + 1}})
events.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1000,
               "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 1}})
with open(os.path.join(out, "deep-stacks.json"), "w") as f:
    json.dump({"schemaVersion": 1, "traceEvents": events}, f)
for name in sorted(os.listdir(out)):
    print(f"{os.path.getsize(os.path.join(out, name)):>12,}  {name}")
