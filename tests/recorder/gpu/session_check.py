"""Shared by the GPU checker scripts (check_sync_sites.py, check_python_syncs.py,
check_sampling.py): opening a recorded session, the sync kind numbers of format/session_enums.h
(SyncKind), a script's MARK lines and STEPS, and the pass/fail report. Qt-free: runs on the GPU
machine next to the scripts."""
import re
import sqlite3

STREAM, DEVICE, EVENT, WAIT, PAGEABLE, BLOCKING = 1, 2, 3, 4, 5, 6
KIND_NAMES = {STREAM: "stream", DEVICE: "device", EVENT: "event", WAIT: "wait",
              PAGEABLE: "pageable-copy", BLOCKING: "blocking-copy"}


def open_session(path):
    """(database, meta dict, failures): failures starts with the session's status if not complete."""
    db = sqlite3.connect(path)
    meta = dict(db.execute("select key, value from meta"))
    failures = []
    if meta.get("status") != "complete":
        failures.append("status is %r" % meta.get("status"))
    return db, meta, failures


def script_marks(script):
    """The script's "# MARK:name" lines by name, and its `STEPS = N` count."""
    marks = {}
    with open(script) as f:
        text = f.read()
    for number, line in enumerate(text.splitlines(), 1):
        m = re.search(r"# MARK:(\w+)", line)
        if m:
            marks[m.group(1)] = number
    return marks, int(re.search(r"^STEPS = (\d+)", text, re.M).group(1))


def report(failures):
    """Prints each failure and the verdict; returns the exit status (0 = pass)."""
    for f in failures:
        print("FAIL:", f)
    print("PASS" if not failures else "FAILED (%d)" % len(failures))
    return 0 if not failures else 1
