"""Makes the small torch.profiler (Kineto) traces that tests/interop imports.

Run on a machine with an NVIDIA GPU:  python3 make_traces.py OUT_DIR
Each scenario runs a few warm-up steps unprofiled, then STEPS steps under torch.profiler with
CPU+CUDA activities and its own options (with_stack=True and record_shapes=False unless the
scenario says otherwise; a schedule where it names one), and writes OUT_DIR/<name>.json.gz.
The function names below are what the importer tests look for in the Python stacks: keep them.
"""
import gzip
import json
import os
import shutil
import sys
import time
from collections import Counter

import torch
from torch.profiler import ProfilerActivity, profile

STEPS = 12
HIDDEN = 256


def make_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, HIDDEN)
    ).cuda()


def train_item(model, opt, x, y, prof):
    """Reads the loss with .item() every step: one blocking read per iteration."""
    losses = []
    for _ in range(STEPS):
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if prof is not None:
            prof.step()
    return losses


def train_sync(model, opt, x, y, prof):
    """Calls torch.cuda.synchronize() every step."""
    for _ in range(STEPS):
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        if prof is not None:
            prof.step()


def train_clean(model, opt, x, y, prof):
    """Keeps the loss on the GPU and reads it once after the loop."""
    total = torch.zeros((), device="cuda")
    for _ in range(STEPS):
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        total += loss.detach()
        if prof is not None:
            prof.step()
    return total.item()


def infer_cpu(model, opt, x, y, prof):
    """Inference that copies a 4 MB output to (pageable) host memory with .cpu() every step."""
    outs = []
    big = torch.randn(1024, 1024, device="cuda")
    with torch.no_grad():
        for _ in range(STEPS):
            out = model(x) @ torch.ones(HIDDEN, 1024, device="cuda")
            outs.append((out[:1] + big).cpu())
            if prof is not None:
                prof.step()
    return len(outs)


def wait_event(model, opt, x, y, prof):
    """Records an event after each step and waits for it on the host (cudaEventSynchronize)."""
    for _ in range(STEPS):
        with torch.no_grad():
            model(x)
        ev = torch.cuda.Event()
        ev.record()
        ev.synchronize()
        if prof is not None:
            prof.step()


def side_stream(model, opt, x, y, prof):
    """Each step: a forward pass on a side stream, an event recorded there, the default stream
    waits on it (cudaStreamWaitEvent), computes on its output, and the host reads one value."""
    side = torch.cuda.Stream()
    for _ in range(STEPS):
        with torch.cuda.stream(side), torch.no_grad():
            h = model(x)
            ready = torch.cuda.Event()
            ready.record(side)
        torch.cuda.current_stream().wait_event(ready)
        with torch.no_grad():
            out = model(h)
        h.record_stream(torch.cuda.current_stream())
        out.sum().item()
        if prof is not None:
            prof.step()


# name, loop, options: sync_events = torch's experimental cuda_sync events (both shapes of event
# waits get tested), stack / shapes = with_stack / record_shapes, schedule = (wait, warmup,
# active) steps, so the trace holds only some ProfilerStep#N.
SCENARIOS = [
    ("item_loop", train_item, {}),
    ("sync_loop", train_sync, {}),
    ("clean_loop", train_clean, {}),
    ("cpu_loop", infer_cpu, {}),
    ("event_loop", wait_event, {"sync_events": True}),
    ("item_nostack", train_item, {"stack": False}),
    ("item_shapes", train_item, {"shapes": True}),
    ("item_scheduled", train_item, {"schedule": (2, 2, 5)}),
    ("side_stream", side_stream, {"sync_events": True}),
    ("side_stream_nostack", side_stream, {"stack": False}),
]


def summarize(path):
    with gzip.open(path, "rt") as f:
        doc = json.load(f)
    events = doc.get("traceEvents", [])
    cats = Counter(e.get("cat", "?") for e in events)
    rt = Counter(e["name"] for e in events if e.get("cat") in ("cuda_runtime", "cuda_driver"))
    copies = Counter(e["name"] for e in events if e.get("cat") in ("gpu_memcpy", "gpu_memset"))
    print("  top-level keys:", sorted(k for k in doc.keys()))
    print("  categories:", dict(cats))
    print("  runtime/driver:", dict(rt))
    print("  copies/sets:", dict(copies))
    shown = set()
    for e in events:
        c = e.get("cat")
        if c not in shown and c is not None:
            shown.add(c)
            print("  example", c, json.dumps(e)[:400])
    mine = [e["name"] for e in events if e.get("cat") == "python_function" and "make_traces" in e["name"]]
    print("  my python frames:", sorted(set(mine)))


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out_dir, exist_ok=True)
    print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))
    x = torch.randn(64, HIDDEN, device="cuda")
    y = torch.randn(64, HIDDEN, device="cuda")
    only = set(sys.argv[2:])  # optional scenario names
    for name, fn, options in SCENARIOS:
        if only and name not in only:
            continue
        model = make_model()
        opt = torch.optim.SGD(model.parameters(), lr=1e-3)
        fn(model, opt, x, y, None)  # warm-up: allocator, cuBLAS handles, lazy init
        torch.cuda.synchronize()
        kwargs = {}
        if options.get("sync_events"):
            try:
                from torch._C._profiler import _ExperimentalConfig

                kwargs["experimental_config"] = _ExperimentalConfig(enable_cuda_sync_events=True)
            except Exception as err:  # older torch: no cuda_sync events, still a useful trace
                print("  no cuda_sync events:", err)
        w, u, a = options.get("schedule", (0, 0, 0))
        t0 = time.perf_counter()
        with profile(
            activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
            with_stack=options.get("stack", True),
            record_shapes=options.get("shapes", False),
            schedule=torch.profiler.schedule(wait=w, warmup=u, active=a, repeat=1) if options.get(
                "schedule") else None,
            **kwargs,
        ) as prof:
            fn(model, opt, x, y, prof)
            torch.cuda.synchronize()
        t1 = time.perf_counter()
        raw = os.path.join(out_dir, name + ".json")
        prof.export_chrome_trace(raw)
        with open(raw, "rb") as src, gzip.open(raw + ".gz", "wb", compresslevel=9) as dst:
            shutil.copyfileobj(src, dst)
        print(f"{name} {options}: {STEPS} steps in {(t1 - t0) * 1e3:.1f} ms, json {os.path.getsize(raw)} B, "
              f"gz {os.path.getsize(raw + '.gz')} B")
        os.remove(raw)
        summarize(raw + ".gz")


if __name__ == "__main__":
    main()
