#!/usr/bin/env python3
"""Lines up nvidia-smi's samples (run_pairs.sh with SMI=1: $OUT/smi.csv) with the timed loops of
the pairs' "both" processes, and prints per loop its median SM clock, power and utilization and
the clock-event reasons seen (0x4: the software power cap):
  smi_by_loop.py SMI_CSV RAW_DIR PAIR
Both clocks are the GPU machine's wall clock (the loops' wall_end, nvidia-smi's timestamp)."""
import datetime
import glob
import json
import os
import statistics
import sys


def samples(path):
    """(unix time, SM MHz, W, utilization %, reasons) per nvidia-smi line."""
    found = []
    with open(path) as f:
        for line in f:
            fields = [field.strip() for field in line.split(",")]
            try:
                when = datetime.datetime.strptime(fields[0], "%Y/%m/%d %H:%M:%S.%f")
                found.append((when.replace(tzinfo=datetime.timezone.utc).timestamp(),
                              int(fields[1].split()[0]), float(fields[2].split()[0]),
                              int(fields[3].split()[0]), fields[5]))
            except (ValueError, IndexError):
                continue  # a header, or a field nvidia-smi could not read
    return found


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    smi, raw_dir, pair = sys.argv[1:]
    rows = samples(smi)
    for path in sorted(glob.glob(os.path.join(raw_dir, pair + ".both*.json"))):
        with open(path) as f:
            loops = [json.loads(line) for line in f if line.startswith("{")]
        for loop in loops:
            end = loop["wall_end"]
            start = end - loop["loop_s"]
            inside = [row for row in rows if start + 0.1 <= row[0] <= end - 0.05]  # settled
            if not inside:
                print("%s round %s %s: no samples" % (os.path.basename(path), loop["round"],
                                                      loop["variant"]))
                continue
            print("%s round %s %-6s %.3f ms/iter  %2d samples  SM %4d MHz  %4.0f W  %3d %%  %s" % (
                os.path.basename(path), loop["round"], loop["variant"],
                loop["loop_s"] / loop["iterations"] * 1e3, len(inside),
                statistics.median(row[1] for row in inside),
                statistics.median(row[2] for row in inside),
                statistics.median(row[3] for row in inside),
                " ".join(sorted(set(row[4] for row in inside)))))


if __name__ == "__main__":
    main()
