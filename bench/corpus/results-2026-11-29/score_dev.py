import json, os, re, statistics, subprocess, sys, glob
ROOT = os.getcwd()  # the repository root
BIN = sys.argv[1] if len(sys.argv) > 1 else "build/test/app/stallscope"
RES = ROOT + "/.devresults"
FIX_RE = re.compile(r"(?:#|//)\s*FIX:")
RULE_RE = re.compile(r"(?:#|//)\s*FIX-RULE:\s*([A-Za-z0-9_-]+)")
# Each pair's sessions come from the latest call that recorded it, its timings from the latest
# call that timed it (a recorder change re-records pairs an earlier call timed).
CALLS = sorted((os.path.basename(d) for d in glob.glob(f"{RES}/corpus*")), key=lambda c: int(c[6:]), reverse=True)
def latest(pattern):
    found = {}
    for c in CALLS:
        for f in glob.glob(f"{RES}/{c}/{pattern}"):
            found.setdefault(os.path.basename(f).split(".")[0], c)
    return found
where = latest("*.rec1.stallscope")
timed = latest("raw/*.before.1.out")
def fix_of(name):
    for ext in ("py", "cu"):
        p = f"{ROOT}/bench/corpus/pairs/{name}/before.{ext}"
        if os.path.exists(p):
            for n, line in enumerate(open(p), 1):
                m = RULE_RE.search(line)
                if m: return {"rule": m.group(1), "file": p, "line": n}
                if FIX_RE.search(line): return {"file": p, "line": n}
def corpus_line(path):
    try: lines = open(path, errors="replace").read().splitlines()
    except OSError: return None
    for l in reversed(lines):
        if l.startswith("CORPUS "): return json.loads(l[7:])
def names(loc, fix):
    return isinstance(loc, dict) and loc.get("line") == fix["line"] and \
        os.path.basename(str(loc.get("file", ""))) == os.path.basename(fix["file"])
out = {}
env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
for name, c in sorted(where.items()):
    d = f"{RES}/{c}"
    t = f"{RES}/{timed.get(name, c)}"
    fix = fix_of(name)
    row = {"corpus": c, "timed": timed.get(name, c), "fix": {k: (os.path.basename(v) if k == "file" else v) for k, v in fix.items()}}
    for v in ("before", "after"):
        steps = []
        for r in (1, 2, 3):
            cl = corpus_line(f"{t}/raw/{name}.{v}.{r}.out")
            steps.append(cl["loop_s"] / cl["steps"] if cl else None)
        row[v] = steps
    recs = []
    for k in (1, 2):
        s = f"{d}/{name}.rec{k}.stallscope"
        rec = {"k": k}
        cl = corpus_line(f"{d}/raw/{name}.recorded.{k}.out")
        rec["corpus"] = cl
        p = subprocess.run([BIN, "--insights", "--json", s], env=env, capture_output=True, text=True)
        if p.returncode != 0:
            rec["error"] = "rc %d: %s" % (p.returncode, (p.stderr.strip().splitlines() or [""])[-1]); recs.append(rec); continue
        rep = json.loads(p.stdout)
        json.dump(rep, open(f"/tmp/scorework/{name}.rec{k}.json", "w"), indent=1)
        ins = rep.get("insights") or []
        summ = rep.get("summary", {})
        rec["window"] = (summ.get("window") or {}).get("label")
        rec["loop"] = summ.get("loop")
        rec["n"] = len(ins)
        rec["top"] = ({"rule": ins[0].get("rule"), "sev": ins[0].get("severity"),
                       "site": "%s:%s" % (os.path.basename(str((ins[0].get("site") or {}).get("file", ""))), (ins[0].get("site") or {}).get("line")),
                       "lib": (ins[0].get("site") or {}).get("library")} if ins else None)
        idx = card = None
        for i, it in enumerate(ins):
            if "rule" in fix:
                if it.get("rule") == fix["rule"]: idx, card = i, it; break
            else:
                site = it.get("site") or {}
                if names(site, fix) or names(site.get("library") if isinstance(site, dict) else None, fix):
                    idx, card = i, it; break
        if card is None:
            rec["pred"] = 0.0; rec["card"] = None
        else:
            loopsteps = (summ.get("loop") or {}).get("steps", 0)
            if loopsteps and "step_savings_ns" in card:
                rec["pred"] = card["step_savings_ns"] * 1e-9; rec["src"] = "step_savings_ns"
            elif not loopsteps:
                rec["pred"] = card.get("savings_ns", 0) * 1e-9 / (cl["steps"] + cl["warmup"]); rec["src"] = "savings/(steps+warmup) [no loop]"
            else:
                rec["pred"] = None; rec["src"] = "no step_savings_ns"
            rec["card"] = {"rank": idx + 1, "rule": card.get("rule"), "sev": card.get("severity"),
                           "savings_ns": card.get("savings_ns"), "step_savings_ns": card.get("step_savings_ns"),
                           "count": card.get("count"), "title": card.get("title")}
        recs.append(rec)
    row["recs"] = recs
    out[name] = row
    print(name, "done", file=sys.stderr)
json.dump(out, open("/tmp/scorework/scored.json", "w"), indent=1)
