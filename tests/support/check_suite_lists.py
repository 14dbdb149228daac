#!/usr/bin/env python3
"""Checks that each test executable holds the suites CMake registered in it (tests/CMakeLists.txt).

    check_suite_lists.py EXECUTABLE SUITE,SUITE,... [EXECUTABLE SUITE,... ...]

For each pair: `EXECUTABLE --list` prints exactly those suites, and `EXECUTABLE no_such_suite`
(when it holds several) exits with status 2 and its usage, running no suite."""
import subprocess
import sys


def check(executable, expected):
    problems = []
    listed = subprocess.run([executable, "--list"], capture_output=True, text=True, timeout=120)
    names = listed.stdout.split()
    if listed.returncode != 0 or sorted(names) != sorted(expected):
        problems.append("%s --list: %s (exit %d), expected %s" % (
            executable, " ".join(names) or "nothing", listed.returncode, " ".join(expected)))
    if len(expected) > 1:
        unknown = subprocess.run([executable, "no_such_suite"], capture_output=True, text=True,
                                 timeout=120)
        if unknown.returncode != 2 or "usage:" not in unknown.stderr:
            problems.append("%s no_such_suite: exit %d, expected 2 and its usage" % (
                executable, unknown.returncode))
    return problems


def main(arguments):
    if not arguments or len(arguments) % 2:
        print(__doc__, file=sys.stderr)
        return 2
    problems = []
    pairs = list(zip(arguments[0::2], arguments[1::2]))
    for executable, suites in pairs:
        problems += check(executable, [s for s in suites.split(",") if s])
    for problem in problems:
        print(problem)
    print("%d executables, %d suites: %s" % (
        len(pairs), sum(len(s.split(",")) for _, s in pairs), "ok" if not problems else "FAILED"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
