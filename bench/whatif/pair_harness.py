"""What the PyTorch before/after pairs share: the command line, the seed, the warm-up and the timed
loop, and the one JSON line each run prints (read by run_pairs.sh and compare.py).

A pair module defines `build(args)` (its workload: model and data, built untimed) and
`run(variant, workload, iterations)` (the loop in its "before" or "after" form, including the
fix's one read after the loop)."""
import argparse
import json
import time

import torch

VARIANTS = ("before", "after")
# --variant both: the two variants alternate in one process, round after round (see time_pair).
BOTH = "both"


def parse_args(default_iters, extra=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", choices=VARIANTS + (BOTH,), required=True)
    parser.add_argument("--rounds", type=int, default=7,
                        help="with --variant both: timed loops of each variant")
    parser.add_argument("--iters", type=int, default=default_iters, help="timed iterations")
    parser.add_argument("--warmup", type=int, default=20, help="untimed iterations first")
    parser.add_argument("--rounds-after-recording", type=int, default=0,
                        help="with --variant before under stallscope-record: then end the "
                             "recording and time both variants alternately, this many rounds "
                             "each, in the same process")
    if extra:
        extra(parser)
    return parser.parse_args()


# Wall-clock start of each iteration of the last loop, and its end (see iterations).
_iteration_starts = []


def iterations(count):
    """range(count) for a pair's loop that notes when each iteration starts: the spread of the
    iterations (pauses of the host, the recorder's included) goes into the JSON line."""
    _iteration_starts.clear()
    for index in range(count):
        _iteration_starts.append(time.perf_counter())
        yield index
    _iteration_starts.append(time.perf_counter())


def iteration_spread():
    """Host time per iteration of the last loop, in µs: median, p90, max, and the pauses' excess
    (the time iterations longer than twice the median took beyond the median, in ms). In a
    "before" loop, which syncs every iteration, this is the iteration's whole time."""
    times = sorted((b - a) * 1e6 for a, b in zip(_iteration_starts, _iteration_starts[1:]))
    if not times:
        return None
    median = times[len(times) // 2]
    excess = sum(t - median for t in times if t > 2 * median)
    return {"median_us": round(median, 2), "p90_us": round(times[int(len(times) * 0.9)], 2),
            "max_us": round(times[-1], 2), "pause_excess_ms": round(excess / 1e3, 3)}


def timed_loop(name, run, workload, variant, args, round_index=None, syncs_per_iteration=1,
               extra=None):
    """Runs the loop timed between two device syncs and prints its JSON line."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    run(variant, workload, args.iters)
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - start
    syncs = syncs_per_iteration if variant == "before" else 0
    line = {"pair": name, "variant": variant, "loop_s": round(loop_s, 6),
            "iterations": args.iters, "syncs_per_iteration": syncs, "warmup": args.warmup,
            "iteration_spread": iteration_spread(), "wall_end": round(time.time(), 3)}
    if round_index is not None:
        line["round"] = round_index
    line.update(extra or {})
    print(json.dumps(line), flush=True)


def stop_recorder():
    """Ends this process's recording (stallscope_stop in the injected recorder library, loaded
    already: RTLD_NOLOAD); the program goes on unrecorded. Exits when the process is not being
    recorded: the rounds after it would not be what they claim."""
    import ctypes
    import os

    path = os.environ.get("CUDA_INJECTION64_PATH")
    try:
        library = ctypes.CDLL(path, mode=getattr(os, "RTLD_NOLOAD", 4) | ctypes.RTLD_LOCAL)
        recording = library.stallscope_recording()
    except (OSError, AttributeError, TypeError):
        recording = 0
    if not recording:
        raise SystemExit("--rounds-after-recording: this process is not being recorded "
                         "(run it under stallscope-record)")
    library.stallscope_stop()


def alternate_rounds(name, run, workload, args, rounds, syncs_per_iteration, extra=None):
    """Warms both variants up, then times them alternately, `rounds` times each (round r: before
    first when r is even), one JSON line per loop with its "round" (and `extra`'s keys)."""
    for variant in VARIANTS:
        run(variant, workload, args.warmup)
    for round_index in range(rounds):
        order = VARIANTS if round_index % 2 == 0 else VARIANTS[::-1]
        for variant in order:
            timed_loop(name, run, workload, variant, args, round_index, syncs_per_iteration, extra)


def time_pair(name, build, run, default_iters, extra_args=None, syncs_per_iteration=1):
    """Builds the workload, runs the loop untimed (warm-up), then timed between two device syncs,
    and prints {"pair", "variant", "loop_s", "iterations", "syncs_per_iteration", "warmup"} on
    stdout (a recording of the run also counts the warm-up's syncs).
    With --variant both, one process warms both variants up and then times them alternately,
    --rounds times each (round r: before first when r is even), one line per loop with its
    "round": machine noise that lasts seconds (clocks, neighbours) then hits both variants of a
    round alike, and the per-round differences cancel it. syncs_per_iteration: of "before" (0 for
    a pair whose finding is not a sync: compare.py then works per iteration).
    With --rounds-after-recording N (and --variant before, recorded): the recorded loop, then the
    recording ends and both variants alternate N rounds each in the same process, their lines
    marked "after_recording": the timed saving of the very process, and speed, that was recorded."""
    args = parse_args(default_iters, extra_args)
    torch.manual_seed(0)
    workload = build(args)
    if args.variant != BOTH:
        if args.rounds_after_recording and args.variant != "before":
            raise SystemExit("--rounds-after-recording goes with --variant before")
        run(args.variant, workload, args.warmup)
        timed_loop(name, run, workload, args.variant, args,
                   syncs_per_iteration=syncs_per_iteration)
        if args.rounds_after_recording:
            stop_recorder()
            alternate_rounds(name, run, workload, args, args.rounds_after_recording,
                             syncs_per_iteration, {"after_recording": True})
        return
    alternate_rounds(name, run, workload, args, args.rounds, syncs_per_iteration)


def mlp(width, depth, out_features=None, dtype=torch.bfloat16):
    """`depth` Linear(width, width) + ReLU layers on the GPU, then Linear(width, out_features)."""
    layers = []
    for _ in range(depth):
        layers += [torch.nn.Linear(width, width), torch.nn.ReLU()]
    layers.append(torch.nn.Linear(width, out_features or width))
    return torch.nn.Sequential(*layers).to(device="cuda", dtype=dtype)


def training_workload(width, depth, batch):
    """An MLP (see mlp), its AdamW optimizer, and one fixed bf16 batch of inputs and targets."""
    model = mlp(width, depth)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    inputs = torch.randn(batch, width, device="cuda", dtype=torch.bfloat16)
    targets = torch.randn(batch, width, device="cuda", dtype=torch.bfloat16)
    return model, optimizer, inputs, targets


def train_step(model, optimizer, inputs, targets):
    """One forward, backward and AdamW step; returns the loss tensor (still on the GPU)."""
    optimizer.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(inputs), targets)
    loss.backward()
    optimizer.step()
    return loss


def captured_graph(step, warmup=3):
    """A torch.cuda.CUDAGraph of one call of `step()` (which works in place on its tensors), after
    `warmup` calls on a side stream, as torch.cuda.graphs asks: the CUDA-graph pairs' fix."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(warmup):
            step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    return graph
