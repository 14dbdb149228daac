#!/usr/bin/env python3
"""Pair b: a launch-bound loop of tiny kernels (64x64 float32 matmuls and element-wise ops, a few
microseconds of GPU work each) with torch.cuda.synchronize() every iteration. What the sync costs
is the launch gap it opens: the GPU waits for the host's next launch.
  before: torch.cuda.synchronize() each iteration
  after:  no sync in the loop (the harness syncs once after it)"""
import torch

from pair_harness import iterations, time_pair

SIZE = 64


def build(args):
    x = torch.randn(SIZE, SIZE, device="cuda")
    weight = torch.randn(SIZE, SIZE, device="cuda") / SIZE ** 0.5
    bias = torch.randn(SIZE, device="cuda")
    return x, weight, bias


def run(variant, workload, count):
    x, weight, bias = workload
    for _ in iterations(count):
        hidden = torch.tanh(x @ weight)  # tanh keeps the values bounded over many iterations
        x = torch.tanh(hidden @ weight + bias)
        if variant == "before":
            torch.cuda.synchronize()  # SYNC-SITE
    return x


if __name__ == "__main__":
    time_pair("launch_bound_sync", build, run, default_iters=25000)
