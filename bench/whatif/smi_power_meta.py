#!/usr/bin/env python3
"""Gives recordings made before the recorder kept its steady power samples (gpu_power_min_w,
gpu_power_steady_*) that meta, from nvidia-smi's samples taken meanwhile (run_pairs.sh with
SMI=1), so that the power projection can be evaluated on them:
  smi_power_meta.py SMI_CSV SESSIONS_DIR OUT_DIR
Copies every *.stallscope of SESSIONS_DIR to OUT_DIR (the originals stay as they are) and writes
into each copy: the lowest power of the samples during the recording, and the mean power of the
steady ones (utilization > 0 in it and in the 10 samples before it: nvidia-smi's 100 ms, the
recorder's rule of one busy second)."""
import glob
import os
import shutil
import sqlite3
import sys

from smi_by_loop import samples

STEADY_AFTER = 10  # nvidia-smi samples (100 ms apart): one second


def recording_span(meta):
    """The recording's start and end in unix seconds (the session's clock is CLOCK_MONOTONIC;
    cupti_clock_vs_host gives its offset to CUPTI's, which is the wall clock)."""
    offset = int(meta["cupti_clock_vs_host"].split("monotonic=")[1].split()[0])
    return ((int(meta["record_start_ns"]) - offset) / 1e9,
            (int(meta["record_end_ns"]) - offset) / 1e9)


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    smi, sessions, out = sys.argv[1:]
    rows = samples(smi)
    os.makedirs(out, exist_ok=True)
    for path in sorted(glob.glob(os.path.join(sessions, "*.stallscope"))):
        copy = os.path.join(out, os.path.basename(path))
        shutil.copy(path, copy)
        db = sqlite3.connect(copy)
        start, end = recording_span(dict(db.execute("SELECT key, value FROM meta")))
        during = [row for row in rows if start <= row[0] <= end]
        if not during:
            print("%s: no nvidia-smi samples during it" % os.path.basename(path))
            continue
        steady = [row for i, row in enumerate(during) if i >= STEADY_AFTER
                  and all(earlier[3] > 0 for earlier in during[i - STEADY_AFTER:i + 1])]
        meta = {"gpu_power_min_w": int(min(row[2] for row in during)),
                "gpu_power_steady_samples": len(steady)}
        if steady:
            meta["gpu_power_steady_w"] = int(sum(row[2] for row in steady) / len(steady))
        db.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                       [(key, str(value)) for key, value in meta.items()])
        db.commit()
        db.close()
        print(os.path.basename(path), meta)


if __name__ == "__main__":
    main()
