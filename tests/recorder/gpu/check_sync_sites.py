#!/usr/bin/env python3
"""Checks a session recorded from sync_sites: counts, kinds, streams, and that every sync from a
site has a stack frame inside that site's function (symbol ranges from `nm -S`, made at build time).
Usage: check_sync_sites.py SESSION SYMS_FILE   (exit 0 = pass). Qt-free: runs on the GPU machine."""
import os
import re
import sys

from session_check import DEVICE, EVENT, PAGEABLE, STREAM, WAIT, open_session, report

SYNC_CALL = re.compile(r"cuda(StreamSynchronize|EventSynchronize|DeviceSynchronize|Memcpy|StreamWaitEvent)\(")

EXPECTED = {  # site -> (kind, count)
    "site_stream_sync_loop": (STREAM, 10),
    "site_event_sync": (EVENT, 3),
    "site_device_sync": (DEVICE, 2),
    "site_pageable_copy": (PAGEABLE, 2),
    "site_stream_wait_event": (WAIT, 2),
    "site_two_streams": (STREAM, 2),
}


def expected_lines(source):
    """site function -> the lines of its sync calls in sync_sites.cu (the CHECK(...) lines)."""
    lines, current = {}, None
    for number, text in enumerate(open(source), 1):
        match = re.match(r"SITE void (site_\w+)\(", text)
        if match:
            current = match.group(1)
        elif text.startswith("}"):  # a function's closing brace at column 0
            current = None
        elif current in EXPECTED and SYNC_CALL.search(text):
            lines.setdefault(current, set()).add(number)
    return lines


def check_source_lines(db, failures):
    """After stallscope-record's symbolization, each site's sync resolves to its exact line."""
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sync_sites.cu")
    want = expected_lines(source)
    rows = db.execute(
        "select s.id, f.function, f.file, f.line from syncs s "
        "join stack_frames sf on sf.stack_id = s.stack_id join frames f on f.id = sf.frame_id "
        "where f.file like '%sync_sites.cu' and f.function like 'site_%' "
        "and sf.position = (select min(x.position) from stack_frames x join frames y "
        "on y.id = x.frame_id where x.stack_id = s.stack_id and y.file like '%sync_sites.cu')"
    ).fetchall()
    seen = {}
    for _, function, _, line in rows:
        seen.setdefault(function, set()).add(line)
    print("symbolized sync lines:", {f: sorted(l) for f, l in sorted(seen.items())})
    print("expected lines:      ", {f: sorted(l) for f, l in sorted(want.items())})
    for site, lines in want.items():
        if seen.get(site) != lines:
            failures.append("%s: syncs resolve to lines %s, expected sync_sites.cu:%s"
                            % (site, sorted(seen.get(site, [])), sorted(lines)))


def main():
    session, syms_path = sys.argv[1], sys.argv[2]
    symbols = {}
    for line in open(syms_path):
        parts = line.split()
        if len(parts) == 4 and parts[3] in EXPECTED:
            symbols[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
    missing = set(EXPECTED) - set(symbols)
    if missing:
        print("FAIL: symbols missing from", syms_path, missing)
        return 1
    db, meta, failures = open_session(session)
    print("status:", meta.get("status"), " exit:", meta.get("exit_code"),
          " capture median ns:", meta.get("stack_capture_median_ns"))
    exe = db.execute("select id, load_bias, path from modules where path like '%sync_sites'").fetchone()
    if not exe:
        failures.append("executable not in the module table")
        exe = (-1, 0, "")
    frames_of = {}
    for stack_id, address, module_id in db.execute(
            "select sf.stack_id, f.address, f.module_id from stack_frames sf "
            "join frames f on f.id = sf.frame_id"):
        frames_of.setdefault(stack_id, []).append((address, module_id))

    def site_of(stack_id):
        for address, module_id in frames_of.get(stack_id, []):
            if module_id != exe[0]:
                continue
            offset = address - exe[1]
            for name, (start, size) in symbols.items():
                if start <= offset < start + size:
                    return name
        return None

    got = {}
    streams_by_site = {}
    rows = db.execute("select kind, stack_id, stream_id, end_ns - start_ns from syncs").fetchall()
    for kind, stack_id, stream_id, blocked in rows:
        site = site_of(stack_id) if stack_id is not None else None
        got.setdefault((site, kind), 0)
        got[(site, kind)] += 1
        streams_by_site.setdefault(site, set()).add(stream_id)
    print("syncs by (site, kind):")
    for (site, kind), count in sorted(got.items(), key=lambda x: str(x)):
        print("   %-24s kind %d: %d" % (site, kind, count))
    for site, (kind, count) in EXPECTED.items():
        if got.get((site, kind), 0) != count:
            failures.append("%s: expected %d syncs of kind %d, got %d" % (site, count, kind, got.get((site, kind), 0)))
    # main's two cudaFree calls at the end wait for the device: BlockingAlloc syncs (kind 8).
    if got.get((None, 8), 0) != 2:
        failures.append("main's frees: expected 2 syncs of kind 8, got %d" % got.get((None, 8), 0))
    unattributed = sum(c for (s, k), c in got.items() if s is None and k != 8)
    if unattributed > 2:  # the setup cudaDeviceSynchronize (+ a possible free-time sync)
        failures.append("%d syncs without a site frame" % unattributed)
    if len(streams_by_site.get("site_two_streams", ())) != 2:
        failures.append("site_two_streams: expected 2 distinct streams, got %s" % streams_by_site.get("site_two_streams"))
    kernels = db.execute("select count(*) from kernels").fetchone()[0]
    expected_kernels = 40 + 3 + 2 + 2 + 4 + 2
    print("kernels:", kernels, "(expected %d)" % expected_kernels)
    if kernels != expected_kernels:
        failures.append("kernels: %d != %d" % (kernels, expected_kernels))
    copies = db.execute("select count(*) from memcpys where copy_kind = 2 and dst_kind = 1").fetchone()[0]
    print("device->pageable copies:", copies)
    if copies != 2:
        failures.append("pageable copies: %d != 2" % copies)
    streams = db.execute("select count(distinct stream_id) from kernels").fetchone()[0]
    print("kernel streams:", streams)
    if streams != 3:
        failures.append("kernel streams: %d != 3 (A, B, default)" % streams)
    devices = db.execute("select name, compute_major, compute_minor, sm_count from devices").fetchall()
    print("devices:", devices)
    dropped = db.execute("select coalesce(sum(count), 0) from dropped").fetchone()[0]
    print("dropped:", dropped)
    if dropped:
        failures.append("dropped records: %d" % dropped)
    if "symbolizer" in meta:
        check_source_lines(db, failures)
    else:
        print("not symbolized (stallscope-record built without LLVM): source lines not checked")
    return report(failures)


if __name__ == "__main__":
    sys.exit(main())
