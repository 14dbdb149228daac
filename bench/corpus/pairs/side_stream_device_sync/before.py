"""Training with asynchronous checkpoint snapshots on a side stream.

Every 10 steps the weights are copied into a GPU snapshot buffer and from there, on a
separate CUDA stream, into pinned host memory (~540 MB over PCIe, ~10 ms), so that saving a
checkpoint does not stall training. Each step the script also logs the wall time and the
loss, and waits for the GPU first so that the step time is honest.
Pattern: that wait is `torch.cuda.synchronize()`, which waits for *every* stream, so the
step after each snapshot also waits for the whole device-to-host copy on the side stream.
Fix: wait for the training stream only, `torch.cuda.current_stream().synchronize()`; the
snapshot copy keeps running in the background.
"""
import argparse
import json
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

WARMUP = 20
DIM, LAYERS, BATCH, SNAPSHOT_EVERY = 4096, 8, 2048, 10


class Snapshotter:
    """Copies the parameters to pinned host memory on its own stream."""

    def __init__(self, params):
        self.params = list(params)
        self.gpu_copy = [torch.empty_like(p) for p in self.params]
        self.host_copy = [torch.empty(p.shape, dtype=p.dtype, pin_memory=True) for p in self.params]
        self.stream = torch.cuda.Stream()

    def snapshot(self):
        main = torch.cuda.current_stream()
        main.wait_stream(self.stream)  # the previous snapshot has left the GPU buffer
        for dst, p in zip(self.gpu_copy, self.params):
            dst.copy_(p.detach())
        self.stream.wait_stream(main)
        with torch.cuda.stream(self.stream):
            for host, dev in zip(self.host_copy, self.gpu_copy):
                host.copy_(dev, non_blocking=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=150)
    args = parser.parse_args()

    torch.manual_seed(0)
    layers = []
    for _ in range(LAYERS):
        layers += [nn.Linear(DIM, DIM), nn.GELU()]
    model = nn.Sequential(*layers, nn.Linear(DIM, 16)).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    snapshots = Snapshotter(model.parameters())
    x = torch.randn(BATCH, DIM, device="cuda")
    y = torch.randn(BATCH, 16, device="cuda")
    log = []

    def train_step(step):
        t0 = time.perf_counter()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.mse_loss(model(x).float(), y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if step % SNAPSHOT_EVERY == 0:
            snapshots.snapshot()
        torch.cuda.synchronize()  # FIX:
        log.append((step, time.perf_counter() - t0, loss.item()))

    for step in range(WARMUP):
        train_step(step)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for step in range(args.steps):
        train_step(step)
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - start
    slowest = max(log[WARMUP:], key=lambda entry: entry[1])
    print(f"slowest step {slowest[0]}: {slowest[1] * 1e3:.2f} ms", file=sys.stderr)
    print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))


if __name__ == "__main__":
    main()
