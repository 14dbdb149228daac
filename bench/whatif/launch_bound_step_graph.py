#!/usr/bin/env python3
"""Pair h: launch_bound_sync's loop (64x64 float32 matmuls, bias add and tanh, a few microseconds
of GPU work each) with its torch.cuda.synchronize() every iteration kept, and the launches
between two syncs made a CUDA graph: the launch-bound finding's graphs split at host syncs.
  before: the ops launched from Python, then torch.cuda.synchronize()
  after:  one iteration captured once in a torch.cuda.CUDAGraph, replayed, then the same sync
compare.py holds the launch-bound finding's saving per iteration (FINDING line)."""
import torch

from pair_harness import captured_graph, iterations, time_pair

SIZE = 64


def step(x, weight, bias):
    hidden = torch.tanh(x @ weight)  # tanh keeps the values bounded over many iterations
    x.copy_(torch.tanh(hidden @ weight + bias))


def build(args):
    x = torch.randn(SIZE, SIZE, device="cuda")
    weight = torch.randn(SIZE, SIZE, device="cuda") / SIZE ** 0.5
    bias = torch.randn(SIZE, device="cuda")
    return x, weight, bias, captured_graph(lambda: step(x, weight, bias))


def run(variant, workload, count):
    x, weight, bias, graph = workload
    for _ in iterations(count):
        if variant == "before":
            step(x, weight, bias)  # FINDING: launch-bound
        else:
            graph.replay()
        torch.cuda.synchronize()
    return x


if __name__ == "__main__":
    time_pair("launch_bound_step_graph", build, run, default_iters=20000, syncs_per_iteration=0)
