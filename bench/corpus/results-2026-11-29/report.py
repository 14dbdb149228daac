import json, statistics as st
d = json.load(open("scored.json"))
HOLD = "assert_all_nonneg bool_mask_loss cu_device_sync_busy_stream cu_malloc_free_in_loop cu_memcpy_h2d_pageable cu_stream_sync_gpu_heavy cu_stream_sync_host_work dataloader_pin_memory empty_cache_each_step eval_tolist_preds fstring_debug_log isfinite_skip_step item_logging_gpu loss_spike_guard max_len_item_pad pageable_h2d_batches print_loss_each_step side_stream_device_sync unique_active_rows".split()
TUNE = "bincount_class_weights coalesce_metric_reads cu_convergence_check cu_event_poll_spin cu_launch_bound_graph cu_memcpy_d2h_pageable cu_pipeline_chunk_syncs cuda_graph_small_mlp embed_cpu_numpy env_reset_nonzero float_loss_history greedy_decode_eos item_logging_dataloader item_once_per_epoch mlm_random_tokens pageable_nonblocking repeat_interleave_sets sync_before_cpu_read sync_for_timing".split()
SEV = {"INFO":0,"LOW":1,"MEDIUM":2,"HIGH":3,"CRITICAL":4}
def ms(x, p=3): return "%.*f" % (p, x*1e3)
def us(x): return "%.1f µs" % (x*1e6)
lines = []
def half(title, names):
    lines.append(f"### {title}\n")
    lines.append("| pair | before ms/step (r1, r2, r3) | after ms/step (r1, r2, r3) | measured saving / step (share) | predicted step saving (rec1; rec2) → median | severity (rec1; rec2) | card rank / top card (rec1; rec2) | holds? |")
    lines.append("|---|---|---|---|---|---|---|---|")
    held = scored = 0; devs = []; worth_low = []; small_high = []; notrun = []
    for n in names:
        if n not in d: notrun.append(n); continue
        r = d[n]
        mb, ma = st.median(r["before"]), st.median(r["after"])
        sav = mb - ma; share = sav / mb
        preds = [rec["pred"] for rec in r["recs"]]
        pm = st.median(preds)
        # the "median recording" (score.py's convention: upper median, i.e. the larger prediction)
        mrec = sorted(r["recs"], key=lambda x: x["pred"])[len(r["recs"]) // 2]
        rstep = mrec["corpus"]["loop_s"] / mrec["corpus"]["steps"]
        pshare = mrec["pred"] / rstep
        sev = (mrec["card"] or {}).get("sev")
        def predtxt(rec):
            t = us(rec["pred"]) if rec["card"] else "no card (0)"
            if rec.get("src", "").startswith("savings/"): t += " †"
            return t
        if share >= 0.05:
            ratio = pm / sav
            ok = 0.80 <= ratio <= 1.25
            devs.append(abs(ratio - 1))
            why = "pred/meas = %.2f" % ratio
        else:
            ok = (mrec["card"] is None) or (sev == "LOW" and pshare < 0.05)
            why = "meas < 5 %%; card %s, pred share %.1f %%" % (sev or "absent", pshare*100)
        scored += 1; held += ok
        if share >= 0.10 and (mrec["card"] is None or sev == "LOW"): worth_low.append(n)
        if share < 0.05 and mrec["card"] is not None and SEV.get(sev, 0) > 1: small_high.append(n)
        def cardtxt(rec):
            c = rec["card"]; t = rec["top"]
            top = "none" if t is None else "%s %s @%s" % (t["rule"], t["sev"], t["site"] if t["site"] != ":0" else "(no site)")
            if t and t.get("lib"): top += " (lib %s:%s)" % (t["lib"]["file"].split("/")[-1], t["lib"]["line"])
            if c is None: return "no card of %d / top: %s" % (rec["n"], top)
            return "#%d of %d (%s) / top: %s" % (c["rank"], rec["n"], c["rule"], "the fix" if c["rank"] == 1 else top)
        lines.append("| `%s` | %s | %s | %s ms (%.1f %%) | %s; %s → %s | %s | %s | %s (%s) |" % (
            n, ", ".join(ms(x) for x in r["before"]), ", ".join(ms(x) for x in r["after"]),
            ms(sav), share*100, predtxt(r["recs"][0]), predtxt(r["recs"][1]), us(pm),
            "; ".join(((rec["card"] or {}).get("sev") or "–") for rec in r["recs"]),
            "; ".join(cardtxt(rec) for rec in r["recs"]), "**yes**" if ok else "no", why))
    lines.append("")
    lines.append(f"* pairs held / scored: **{held} / {scored}**" + (f" (not run, so not scored: {', '.join(notrun)})" if notrun else ""))
    lines.append("* median |pred/meas − 1| over pairs with measured ≥ 5 %%: %s (over %d pairs)" % ("%.2f" % st.median(devs) if devs else "–", len(devs)))
    lines.append("* fixes worth ≥ 10 %% rated LOW or without a card: %s" % (", ".join(worth_low) or "none"))
    lines.append("* fixes worth < 5 %% rated above LOW: %s" % (", ".join(small_high) or "none"))
    lines.append("")
half("Hold-out half", HOLD)
half("Tuning half", TUNE)
lines.append("### Loop window per recording (summary.window.label)\n")
lines.append("| pair | rec1 | rec2 |\n|---|---|---|")
for n in HOLD + TUNE:
    if n in d: lines.append("| `%s` | %s | %s |" % (n, d[n]["recs"][0]["window"], d[n]["recs"][1]["window"]))
print("\n".join(lines))
