#!/usr/bin/env python3
"""Pair c: an inference loop (a bf16 MLP forward, ~1-2 ms of GPU work on an H100) that copies each
prediction (4 MiB of float32) to the host with .cpu(): a device -> pageable copy, staged by the
driver, that the host waits for.
  before: predictions.append(pred.cpu()) each iteration
  after:  preallocated pinned host buffers, buffer.copy_(pred, non_blocking=True), one sync after"""
import torch

from pair_harness import iterations, mlp, time_pair

WIDTH, DEPTH, BATCH, CLASSES = 4096, 6, 4096, 256  # ~0.8 TFLOP per forward, 4 MiB per prediction


def build(args):
    model = mlp(WIDTH, DEPTH, out_features=CLASSES).eval()
    inputs = torch.randn(BATCH, WIDTH, device="cuda", dtype=torch.bfloat16)
    pinned = None
    if args.variant != "before" or args.rounds_after_recording:
        # The fix's buffers, one per iteration, allocated (and pinned) before the timed loop (and
        # before a recorded one, outside its window); the warm-up reuses the first ones.
        rows = max(args.iters, args.warmup)
        pinned = torch.empty((rows, BATCH, CLASSES), dtype=torch.float32, pin_memory=True)
    return model, inputs, pinned


@torch.no_grad()
def run(variant, workload, count):
    model, inputs, pinned = workload
    predictions = []
    for step in iterations(count):
        pred = model(inputs).float()
        if variant == "before":
            predictions.append(pred.cpu())  # SYNC-SITE
        else:
            predictions.append(pinned[step].copy_(pred, non_blocking=True))
    if variant == "after":
        torch.cuda.synchronize()  # the pinned buffers are complete only after this
    return predictions


if __name__ == "__main__":
    time_pair("pageable_copy", build, run, default_iters=400)
