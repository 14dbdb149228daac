#!/usr/bin/env python3
"""The corpus's frozen hold-out rule (bench/corpus/README.md, "Hold-out").

Order the pairs by (language, expect_saving, name) -- "cuda" before "python", "none" before
"yes", names as plain strings -- and number them from 0 in that order: the pairs at odd
positions are the hold-out, those at even positions the tuning half. The rule reads only
the manifest's language, expect_saving and name, never a measurement or a prediction; it
gives exactly floor(n / 2) hold-out pairs, and each (language, expect_saving) group is split
as evenly as its size allows (within one pair).

    python3 bench/corpus/holdout.py           # check that manifest.json follows the rule
    python3 bench/corpus/holdout.py --write   # set the "holdout" flags in manifest.json
"""
import argparse
import json
import os
import sys

MANIFEST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "manifest.json")


def holdout_names(pairs):
    ordered = sorted(pairs, key=lambda p: (p["language"], p["expect_saving"], p["name"]))
    return {p["name"] for i, p in enumerate(ordered) if i % 2 == 1}


def summary(pairs, held):
    lines = []
    for half, names in (("hold-out", held), ("tuning", {p["name"] for p in pairs} - held)):
        members = [p for p in pairs if p["name"] in names]
        by_lang = {lang: sum(p["language"] == lang for p in members) for lang in ("python", "cuda")}
        none = sum(p["expect_saving"] == "none" for p in members)
        lines.append("%s: %d pairs (python %d, cuda %d, expect none %d): %s" % (
            half, len(members), by_lang["python"], by_lang["cuda"], none,
            " ".join(sorted(p["name"] for p in members))))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="write the flags into manifest.json")
    parser.add_argument("--manifest", default=MANIFEST)
    args = parser.parse_args()

    with open(args.manifest) as f:
        pairs = json.load(f)
    held = holdout_names(pairs)
    if args.write:
        for p in pairs:
            p["holdout"] = p["name"] in held
        with open(args.manifest, "w") as f:
            json.dump(pairs, f, indent=1)
            f.write("\n")
    print(summary(pairs, held))
    wrong = [p["name"] for p in pairs if bool(p.get("holdout")) != (p["name"] in held)]
    if wrong:
        print("manifest.json disagrees with the rule for: " + " ".join(wrong), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
