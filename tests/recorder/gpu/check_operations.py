"""Holds the operation catalog (docs/insights.md, "The operations that sync") against PyTorch's own
sync detector. For each script of tests/recorder/gpu/ops, DIR holds its recording
(<name>.stallscope) and the lines torch.cuda.set_sync_debug_mode("warn") flagged in it
(<name>.flagged, record_operations.sh). Every flagged line of the script must be a sync site of
the recording at that line (PyTorch flags a backward pass's syncs at the `.backward()` call; the
recording joins them to the line whose forward op made them: a site with backward syncs stands for
that call), a site at the script's `# EXPECT: <id>` line must be told as that catalog operation
(a library call such as trainer.fit() may also have sites of other operations at its line), and
no finding's title may be a C++ template name. Prints one row per script; exits 1 when any check
fails.
DIR may be a .tar.xz of those files (ops/recorded-h100.tar.xz: the recordings CI checks on CPU).
Usage: python3 check_operations.py DIR STALLSCOPE"""
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECT = re.compile(r"#\s*EXPECT:\s*([a-z0-9-]+)")
# A C++ template instantiation or one of ATen's internal namespaces, as a raw native frame would
# name a site (an op named as `aten::nonzero` is the catalog's wording, not a frame).
TEMPLATE_NAME = re.compile(r"\w<|\b(c10|at::native|at::_ops|at::impl)::")


def expectation(script):
    with open(script) as f:
        for number, line in enumerate(f, 1):
            match = EXPECT.search(line)
            if match:
                return number, match.group(1)
    raise SystemExit(f"{script}: no EXPECT line")


def main():
    source, stallscope = sys.argv[1], sys.argv[2]
    if not source.endswith(".tar.xz"):
        return check(source, stallscope)
    with tempfile.TemporaryDirectory() as directory:
        with tarfile.open(source) as archive:
            try:
                archive.extractall(directory, filter="data")
            except TypeError:  # Python before 3.11.4 (Debian 12): our own archive
                archive.extractall(directory)
        return check(directory, stallscope)


def check(directory, stallscope):
    failures = 0
    unflagged = []
    names = sorted(f[3:-3] for f in os.listdir(os.path.join(HERE, "ops")) if f.startswith("op_"))
    for name in names:
        script_name = f"op_{name}.py"
        line, expected = expectation(os.path.join(HERE, "ops", script_name))
        with open(os.path.join(directory, f"{name}.flagged")) as f:
            flagged = sorted({int(l.split()[1]) for l in f if l.startswith("FLAGGED")} - {0})
        run = subprocess.run([stallscope, "--insights", "--json",
                              os.path.join(directory, f"{name}.stallscope")],
                             capture_output=True, text=True,
                             env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
        if run.returncode != 0:
            print(f"FAIL {name}: stallscope exited {run.returncode}: {run.stderr.strip()}")
            failures += 1
            continue
        report = json.loads(run.stdout)
        sites = {}
        backward = 0
        for site in report["sites"]:
            backward += site.get("backward_syncs", 0)
            where = site["site"]
            if os.path.basename(where.get("file", "")) == script_name:
                lines = [where["line"]] + [j["line"] for j in site.get("joined_lines", [])]
                for l in lines:
                    sites.setdefault(l, set()).add(site.get("operation", ""))
        with open(os.path.join(HERE, "ops", script_name)) as f:
            text = f.read().splitlines()
        calls_backward = {l for l in flagged if ".backward(" in text[l - 1]}
        problems = [f"line {l} flagged by PyTorch, no site there" for l in flagged
                    if l not in sites and not (l in calls_backward and backward > 0)]
        if expected not in sites.get(line, set()):
            told = " and ".join(sorted(sites.get(line, set()))) or "nothing"
            problems.append(f"line {line} told as {told!r}, not {expected!r}")
        problems += [f"a finding's title is a C++ name: {insight['title']!r}"
                     for insight in report["insights"] if TEMPLATE_NAME.search(insight["title"])]
        unflagged += [f"{name}:{l} ({' and '.join(sorted(ops - {''})) or 'no operation'})"
                      for l, ops in sites.items() if l not in flagged]
        status = "FAIL" if problems else "ok"
        failures += bool(problems)
        print(f"{status:4} {name:20} expect {expected:24} flagged {flagged} sites "
              f"{sorted((l, sorted(ops)) for l, ops in sites.items())}" + ("; " + "; ".join(problems) if problems else ""))
    print(f"{len(names) - failures} of {len(names)} scripts hold")
    if unflagged:
        print("syncs found that PyTorch's sync debug mode does not flag: " + ", ".join(unflagged))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
