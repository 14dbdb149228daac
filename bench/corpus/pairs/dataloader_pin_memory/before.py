"""Spectrogram classifier trained from a DataLoader with 4 worker processes.

The dataset is an in-memory TensorDataset of 128x128 float32 "spectrograms"; workers collate
batches of 256 (16 MiB), the main process copies each batch to the GPU with
`.cuda(non_blocking=True)` and trains a small CNN with bf16 autocast.
Pattern: the DataLoader is created with pin_memory=False, so the batches arrive in pageable
(shared) memory and `.cuda(non_blocking=True)` cannot be asynchronous: the host is held
until the copy is done, after the previous step's GPU work.
Fix: `DataLoader(..., pin_memory=True)`: a background thread pins each batch, and the
non-blocking copy is really queued. (The FIX line is the copy, where the host waits; the
change is in the DataLoader arguments.)
"""
import argparse
import json
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

WARMUP = 10


def make_model(num_classes=35):
    def block(cin, cout):
        return [nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(), nn.MaxPool2d(2)]
    return nn.Sequential(*block(1, 32), *block(32, 64), *block(64, 128), *block(128, 256),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(256, num_classes))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=150)
    args = parser.parse_args()

    torch.manual_seed(0)
    specs = torch.randn(8192, 1, 128, 128)
    labels = torch.randint(0, 35, (8192,))
    loader = DataLoader(TensorDataset(specs, labels), batch_size=256, shuffle=True, drop_last=True,
                        num_workers=4, persistent_workers=True, pin_memory=False)
    model = make_model().cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

    def batches():
        while True:
            yield from loader

    data = batches()

    def train_step():
        x, y = next(data)
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)  # FIX:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    for _ in range(WARMUP):
        train_step()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(args.steps):
        train_step()
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - start
    print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))


if __name__ == "__main__":
    main()
