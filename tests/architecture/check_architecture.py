#!/usr/bin/env python3
"""Checks that the code keeps the shape docs/architecture.md describes.

* Every project include names a header by its path from the repository root.
* A library includes only its own headers and those of the libraries below it (LAYERS); tests
  and benches may include anything.
* No include cycle between files, and no two-way include between units (a header and its .cpp):
  when a.cpp includes b.h and b.cpp includes a.h, neither can be understood or tested alone.
* Qt-free libraries include no Qt header; the model includes no Qt Widgets header.
* SQL outside format/ names the session's tables and columns through format::CheckedSql
  ("{kernels.start_ns}") or the table descriptors, never by hand: a string literal with a table of
  format/session_tables.h after FROM, JOIN, INTO, UPDATE or TABLE is a violation.
* No source file is longer than MAX_LINES.
* A class's member functions are defined in one .cpp file: a class that outgrows its file is cut
  by responsibility into classes of their own, not spread over files to fit MAX_LINES. The
  classes still spread are listed in SPREAD_CLASSES, each with the cut it waits for; the list
  may only shrink.

Exits non-zero with one line per violation. Usage: check_architecture.py [REPO_ROOT]
`--self-test` plants one violation of each kind in a scratch repository and checks each is found.
"""
import os
import re
import subprocess
import sys

MAX_LINES = 600

# Library folder -> the library folders it may include (directly). Keep in step with the
# target_link_libraries of each folder's CMakeLists.txt and with docs/architecture.md.
LAYERS = {
    "format": set(),
    "symbolize": {"format"},
    "recorder": {"format", "symbolize"},
    "model/jobs": set(),
    "model/session": {"format"},
    "model/whatif": {"model/session", "format"},
    "model/analysis": {"model/whatif", "model/session", "format"},
    "model/compare": {"model/analysis", "model/whatif", "model/session", "format"},
    "model/interop": {"model/session", "format"},
    "model/fleet": {"model/interop", "model/analysis", "model/whatif", "model/session", "format"},
    "model/testing": {"format"},
    "views/timeline": {"model/analysis", "model/whatif", "model/session", "format"},
    "views/dialogs": {"format"},
    "views/panels": {"views/timeline", "views/dialogs", "model/analysis", "model/whatif", "model/jobs",
                     "model/session", "format"},
    "views/report": {"views/panels", "views/timeline", "model/analysis", "model/whatif",
                     "model/session", "format"},
    "views/compare": {"views/panels", "views/timeline", "model/compare", "model/analysis",
                      "model/whatif", "model/session", "format"},
    "app": {"views/report", "views/compare", "views/panels", "views/timeline", "views/dialogs",
            "model/fleet", "model/interop",
            "model/jobs", "model/compare", "model/analysis", "model/whatif", "model/session",
            "format", "symbolize"},
}
# Classes whose member functions still lie in several .cpp files (issue 41), and the cut each
# waits for. Remove a class once it is cut; adding one fails review.
SPREAD_CLASSES = {}
MEMBER_DEFINITION = re.compile(r'^[^\s#/][^\n;{}()]*?\b([A-Z]\w+)::~?\w+\s*\(', re.M)

# Folders that may include any library (never included by one).
FREE = ("tests", "bench")
QT_FREE = ("format", "symbolize", "recorder", "model/testing", "model/whatif")
NO_WIDGETS = ("model/jobs", "model/session", "model/whatif", "model/analysis", "model/compare",
              "model/interop", "model/fleet")
SOURCE_SUFFIXES = (".h", ".cpp", ".cu")
INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]', re.M)
TABLES_HEADER = "format/session_tables.h"
TABLE_DESCRIPTOR = re.compile(r'Table k\w+\{\s*"(\w+)"')
STRING_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
SQL_TABLE = re.compile(r'\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+(?:\w+\.)?(\w+)')


def handwritten_sql(path, text, tables):
    """The lines of `text` whose string literals name a session table in SQL."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("//"):
            continue
        for literal in STRING_LITERAL.finditer(line):
            for use in SQL_TABLE.finditer(literal.group(1)):
                if use.group(1) in tables:
                    found.append(f'{path}:{number}: SQL names table "{use.group(1)}" by hand '
                                 f'("{use.group(0)}"): write it through format::CheckedSql')
    return found


def module_of(path):
    for module in sorted(LAYERS, key=len, reverse=True):
        if path.startswith(module + "/"):
            return module
    for free in FREE:
        if path.startswith(free + "/"):
            return free
    return None


def find_cycle(graph):
    """Returns one cycle (a list of nodes) of a directed graph, or None."""
    state = {}
    stack = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def check(root, spread_classes=SPREAD_CLASSES):
    files = subprocess.check_output(["git", "ls-files", "--cached", "--others",
                                     "--exclude-standard"], cwd=root, text=True).split()
    files = [f for f in files if f.endswith(SOURCE_SUFFIXES) and os.path.exists(os.path.join(root, f))]
    known = set(files)
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), f)
    problems = []
    graph = {}
    files_of_class = {}

    tables = set()
    if os.path.exists(os.path.join(root, TABLES_HEADER)):
        with open(os.path.join(root, TABLES_HEADER), encoding="utf-8") as f:
            tables = set(TABLE_DESCRIPTOR.findall(f.read()))

    layer_cycle = find_cycle(LAYERS)
    if layer_cycle:
        problems.append("LAYERS itself has a cycle: " + " -> ".join(layer_cycle))

    for path in files:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        lines = text.count("\n")
        if lines > MAX_LINES and not path.startswith("tests/architecture/fixtures/"):
            problems.append(f"{path}: {lines} lines (at most {MAX_LINES}: split it by responsibility)")
        module = module_of(path)
        if module is None:
            continue
        if module != "format" and module not in FREE:
            problems += handwritten_sql(path, text, tables)
        if module not in FREE and path.endswith(".cpp"):
            for cls in set(MEMBER_DEFINITION.findall(text)):
                files_of_class.setdefault(cls, set()).add(path)
        graph.setdefault(path, set())
        for match in INCLUDE.finditer(text):
            bracket, name = match.group(1), match.group(2)
            if bracket == "<" and name in by_name and module_of(by_name[name]) in LAYERS:
                problems.append(f'{path}: #include <{name}>: write it from the root as "{by_name[name]}"')
                continue
            if bracket == "<":
                if module in QT_FREE and name.startswith("Q"):
                    problems.append(f"{path}: includes <{name}> but {module} is Qt-free")
                if module in NO_WIDGETS and name.startswith(("QtWidgets", "QWidget", "QAbstractItemView")):
                    problems.append(f"{path}: includes <{name}> but {module} has no widgets")
                continue
            if name.endswith(".moc"):
                continue
            if name not in known:
                sibling = os.path.normpath(os.path.join(os.path.dirname(path), name))
                if sibling in known:
                    problems.append(f'{path}: #include "{name}": write it from the root as "{sibling}"')
                continue  # generated or system header
            graph[path].add(name)
            target = module_of(name)
            if module in FREE or target == module:
                continue
            if target in FREE:
                problems.append(f'{path}: includes test/bench code "{name}"')
            elif target not in LAYERS[module]:
                problems.append(f'{path}: {module} may not include "{name}" ({target}); '
                                f'allowed: {", ".join(sorted(LAYERS[module])) or "nothing"}')

    cycle = find_cycle(graph)
    if cycle:
        problems.append("include cycle: " + " -> ".join(cycle))

    for cls, where in sorted(files_of_class.items()):
        if len(where) > 1 and cls not in spread_classes:
            problems.append(f"class {cls} is defined in {len(where)} files ({', '.join(sorted(where))}): "
                            "cut it by responsibility into classes of their own")
    for cls in sorted(spread_classes):
        if len(files_of_class.get(cls, ())) < 2:
            problems.append(f"class {cls} is no longer spread over files: remove it from "
                            "SPREAD_CLASSES")

    units = {}
    for path, names in graph.items():
        unit = os.path.splitext(path)[0]
        units.setdefault(unit, set()).update(os.path.splitext(n)[0] for n in names)
    for unit, used in sorted(units.items()):
        for other in sorted(used):
            if other > unit and unit in units.get(other, ()):
                problems.append(f"two-way include: {unit} <-> {other} (one of them should not "
                                "need the other)")

    return files, problems


def self_test():
    import tempfile
    planted = {
        "format/a.h": '#include <QString>\n',                                   # Qt in a Qt-free lib
        "model/session/b.h": '#include "views/timeline/c.h"\n',                  # edge up a layer
        "views/timeline/c.h": '#include "views/timeline/d.h"\n',
        "views/timeline/d.h": '#include "views/timeline/c.h"\n',                 # include cycle
        "model/analysis/e.cpp": '#include "f.h"\n#include <f.h>\n',             # not from the root
        "model/analysis/f.h": "\n" * (MAX_LINES + 1),                            # too long
        "model/interop/g.cpp": '#include <QWidget>\n',                           # widgets in model
        "app/ok.cpp": '#include "views/timeline/c.h"\n#include "model/session/b.h"\n',
        "views/dialogs/x.h": "",
        "views/dialogs/x.cpp": '#include "views/dialogs/x.h"\n#include "views/dialogs/y.h"\n',
        "views/dialogs/y.h": "",
        "views/dialogs/y.cpp": '#include "views/dialogs/y.h"\n#include "views/dialogs/x.h"\n',
        "format/session_tables.h": 'inline constexpr Table kKernels{"kernels", columns::kKernels};\n',
        "model/session/spread_a.cpp": "int Spread::first(int x) {\n  return x;\n}\n",
        "model/session/spread_b.cpp": "int Spread::second(int x) {\n  return x;\n}\n",  # spread
        "model/session/h.cpp": ('auto a = "SELECT id FROM kernels";\n'             # SQL by hand
                                'auto b = CheckedSql("SELECT {kernels.id} FROM {kernels}");\n'
                                'auto c = "the kernels FROM the GPU";\n'),
    }
    # c.h <-> d.h is a cycle and a two-way include; x <-> y only a two-way include.
    expected = ["Qt-free", "may not include", "include cycle", "from the root", "from the root",
                "lines (at most", "has no widgets", "two-way include", "two-way include",
                "by hand", "defined in 2 files", "no longer spread"]
    with tempfile.TemporaryDirectory() as root:
        for path, text in planted.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        subprocess.check_call(["git", "init", "-q", root])
        # "Listed" is allowed to be spread and is not: a stale entry of the list.
        _, problems = check(root, spread_classes={"Listed": "planted"})
    missing = [e for e in expected if sum(e in p for p in problems) != expected.count(e)]
    for problem in problems:
        print("found:", problem)
    if missing or len(problems) != len(expected):
        print(f"self-test FAILED: expected one problem each of {expected}, missing {missing}")
        return 1
    print(f"self-test: all {len(expected)} planted violations found")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    files, problems = check(os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "."))
    for problem in problems:
        print(problem)
    print(f"architecture: {len(files)} files checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
