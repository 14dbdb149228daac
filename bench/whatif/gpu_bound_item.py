#!/usr/bin/env python3
"""Pair a: a GPU-bound bf16 MLP training step (~5 ms of GPU work per step on an H100) that reads
the loss with .item() every step. The GPU is the bottleneck, so the fix only saves the launch gap
after each read.
  before: losses.append(loss.item()) each step
  after:  total += loss.detach() on the GPU, one .item() after the loop"""
import torch

from pair_harness import iterations, time_pair, train_step, training_workload

WIDTH, DEPTH, BATCH = 4096, 3, 8192  # 4 Linear(4096, 4096): ~3.3 TFLOP per step


def build(args):
    return training_workload(WIDTH, DEPTH, BATCH)


def run(variant, workload, count):
    model, optimizer, inputs, targets = workload
    losses = []
    total = torch.zeros((), device="cuda")
    for _ in iterations(count):
        loss = train_step(model, optimizer, inputs, targets)
        if variant == "before":
            losses.append(loss.item())  # SYNC-SITE
        else:
            total += loss.detach()
    if variant == "after":
        losses.append(total.item())
    return losses


if __name__ == "__main__":
    time_pair("gpu_bound_item", build, run, default_iters=200)
