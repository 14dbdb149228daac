#!/usr/bin/env python3
"""Pair g: a launch-bound loop of tiny kernels (three 64x64 float32 layers: matmuls, bias adds,
tanh and an in-place copy, a few microseconds of GPU work each) without any sync in the loop. The
GPU waits for the host's Python between kernels; the launch-bound finding's fix is a CUDA graph.
  before: the layers run eagerly, each op its own launch
  after:  one iteration captured once in a torch.cuda.CUDAGraph, replayed each iteration
There is no sync to remove: the finding is the device's launch-bound stretch (FINDING line), and
compare.py holds its saving per iteration against the measured one."""
import torch

from pair_harness import captured_graph, iterations, time_pair

SIZE = 64
LAYERS = 3


def step(x, weights, biases):
    for weight, bias in zip(weights, biases):
        x.copy_(torch.tanh(x @ weight + bias))  # tanh keeps the values bounded


def build(args):
    x = torch.randn(SIZE, SIZE, device="cuda")
    weights = [torch.randn(SIZE, SIZE, device="cuda") / SIZE ** 0.5 for _ in range(LAYERS)]
    biases = [torch.randn(SIZE, device="cuda") for _ in range(LAYERS)]
    return x, weights, biases, captured_graph(lambda: step(x, weights, biases))


def run(variant, workload, count):
    x, weights, biases, graph = workload
    for _ in iterations(count):
        if variant == "before":
            step(x, weights, biases)  # FINDING: launch-bound
        else:
            graph.replay()
    return x


if __name__ == "__main__":
    time_pair("launch_bound_graph", build, run, default_iters=20000, syncs_per_iteration=0)
