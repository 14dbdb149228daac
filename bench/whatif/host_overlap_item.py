#!/usr/bin/env python3
"""Pair d: a training step (~4-5 ms of GPU work on an H100 or H200, about twice as long as the
~2 ms of Python that launches it) followed by ~1.5 ms of host-side Python (a fixed, deterministic
pure-Python computation, not a sleep), with loss.item() between them. The read keeps the host work
from overlapping the GPU's step. (Until 2026-11-27 the batch was 2048: ~2 ms of GPU work, as long
as the launches, so that the saving was the difference of two nearly equal, noisy times — 44 to
1,394 us per sync over seven rounds on an H200; --batch 2048 runs that version.)
  before: step, losses.append(loss.item()), host work
  after:  step, losses.append(loss.detach()), host work; one read (.tolist()) after the loop
--host-work sets the computation's size (prints its measured time on stderr)."""
import sys
import time

import torch

from pair_harness import iterations, time_pair, train_step, training_workload

WIDTH, DEPTH = 4096, 3  # 4 Linear(4096, 4096): ~2.5 TFLOP per step at the default batch


def host_work(n):
    """Deterministic CPU work that holds the GIL, like a data-loading or logging step in Python."""
    acc = 0
    for i in range(n):
        acc = (acc * 31 + i) % 1000003
    return acc


def add_host_work_arg(parser):
    parser.add_argument("--host-work", type=int, default=25000,
                        help="iterations of the host computation (~1.5 ms at the default)")
    parser.add_argument("--batch", type=int, default=6144, help="rows of the training batch")


def build(args):
    start = time.perf_counter()
    host_work(args.host_work)
    print("host_overlap_item: host work %.3f ms" % ((time.perf_counter() - start) * 1e3),
          file=sys.stderr)
    return (*training_workload(WIDTH, DEPTH, args.batch), args.host_work)


def run(variant, workload, count):
    model, optimizer, inputs, targets, host_iterations = workload
    losses = []
    for _ in iterations(count):
        loss = train_step(model, optimizer, inputs, targets)
        losses.append(loss.item() if variant == "before" else loss.detach())  # SYNC-SITE
        host_work(host_iterations)
    if variant == "after" and losses:
        losses = torch.stack(losses).tolist()  # the one read, after the loop
    return losses


if __name__ == "__main__":
    time_pair("host_overlap_item", build, run, default_iters=300, extra_args=add_host_work_arg)
