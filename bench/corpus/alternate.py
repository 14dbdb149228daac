#!/usr/bin/env python3
"""Times a corpus pair's two programs alternately in ONE Python process (the in-process mode).

    python3 bench/corpus/alternate.py --pair NAME --rounds R --raw RAW_DIR [-- PROGRAM_ARGS...]

For a Python pair, round r runs bench/corpus/pairs/NAME/before.py then after.py when r is even,
after.py then before.py when r is odd, each with runpy.run_path(path, run_name="__main__") and
sys.argv = [path] + PROGRAM_ARGS (e.g. --steps 20). Noise that lasts seconds (clocks, neighbours,
the cores the process got) then hits both programs of a round alike, and the median of the
rounds' differences cancels much of it. Each run's stdout goes to RAW_DIR/NAME.inproc.stdout;
its CORPUS line (the last line starting with "CORPUS ") is parsed, and one JSON line per run is
appended to RAW_DIR/NAME.inproc.jsonl:

    {"pair": NAME, "round": r, "variant": "before", "position": 0, "steps": N, "loop_s": X,
     "warmup": W, "step_s": X / N, "ok": true}

(`"ok": false, "error": "..."` when the program raised or printed no CORPUS line). Between runs
the program's globals are dropped, then gc.collect(), torch.cuda.synchronize() and
torch.cuda.empty_cache(), outside any timed loop.

A C++ pair is not run here (its separate-process rounds already alternate the two binaries):
one line {"pair": NAME, "status": "n/a", "reason": "..."} is written instead.
"""
import argparse
import gc
import json
import os
import runpy
import sys
import time
import traceback
from contextlib import redirect_stdout

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAIRS_DIR = os.path.join(ROOT, "bench", "corpus", "pairs")


def corpus_line(text):
    """The JSON object of the last `CORPUS {...}` line of text, or None."""
    for line in reversed(text.splitlines()):
        if line.startswith("CORPUS "):
            try:
                return json.loads(line[len("CORPUS "):])
            except ValueError:
                return None
    return None


def run_once(path, program_args, stdout_file):
    """Runs one program in this process; returns (parsed CORPUS object or None, error or None)."""
    saved_argv = sys.argv
    sys.argv = [path] + list(program_args)
    start = stdout_file.tell()
    error = None
    namespace = None
    try:
        with redirect_stdout(stdout_file):
            namespace = runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:  # argparse errors, an explicit sys.exit
        if exc.code not in (0, None):
            error = "SystemExit(%r)" % (exc.code,)
    except BaseException:  # noqa: B902 -- a failing program is a result, not a crash
        error = traceback.format_exc(limit=5)
    finally:
        sys.argv = saved_argv
        stdout_file.flush()
    del namespace
    stdout_file.seek(start)
    found = corpus_line(stdout_file.read())
    stdout_file.seek(0, os.SEEK_END)
    if found is None and error is None:
        error = "no CORPUS line on stdout"
    return found, error


def settle():
    gc.collect()
    try:
        import torch
        if torch.cuda.is_available():
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
    except Exception:  # noqa: BLE001
        pass
    gc.collect()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pair", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--raw", required=True, help="folder for NAME.inproc.jsonl and NAME.inproc.stdout")
    parser.add_argument("program_args", nargs="*", help="arguments for both programs (after --)")
    args = parser.parse_args()

    os.makedirs(args.raw, exist_ok=True)
    results_path = os.path.join(args.raw, args.pair + ".inproc.jsonl")
    paths = {v: os.path.join(PAIRS_DIR, args.pair, v + ".py") for v in ("before", "after")}
    with open(results_path, "a") as results:
        if not all(os.path.exists(p) for p in paths.values()):
            results.write(json.dumps({"pair": args.pair, "status": "n/a",
                                      "reason": "not a Python pair: its separate-process rounds stand in"}) + "\n")
            print("%s: n/a (C++ pair)" % args.pair)
            return 0
        with open(os.path.join(args.raw, args.pair + ".inproc.stdout"), "a+") as stdout_file:
            for r in range(args.rounds):
                order = ("before", "after") if r % 2 == 0 else ("after", "before")
                for position, variant in enumerate(order):
                    t0 = time.time()
                    found, error = run_once(paths[variant], args.program_args, stdout_file)
                    record = {"pair": args.pair, "round": r, "variant": variant, "position": position,
                              "ok": error is None, "wall_s": round(time.time() - t0, 3)}
                    if found:
                        record.update({k: found.get(k) for k in ("steps", "loop_s", "warmup")})
                        if found.get("steps"):
                            record["step_s"] = found["loop_s"] / found["steps"]
                    if error:
                        record["error"] = error
                    results.write(json.dumps(record) + "\n")
                    results.flush()
                    print("%s round %d %s: %s" % (args.pair, r, variant,
                                                  "%.6f s/step" % record["step_s"] if "step_s" in record
                                                  else "FAILED: " + error.strip().splitlines()[-1]),
                          file=sys.__stdout__, flush=True)
                    settle()
    return 0


if __name__ == "__main__":
    sys.exit(main())
