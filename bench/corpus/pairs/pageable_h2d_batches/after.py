"""Image classifier trained from a dataset cached in host memory as ready-made batches.

The 64x64 RGB images were decoded once into 32 float32 batches of 128 (6 MiB each) that stay
in ordinary (pageable) host memory; each step copies one batch to the GPU and trains a small
CNN with bf16 autocast.
Pattern: `images.to("cuda")` every step from pageable memory: a blocking copy, which first
waits for the GPU to finish the previous step and then keeps the host busy staging 6 MiB
through a bounce buffer.
Fix: pin the cached batches once (`.pin_memory()`), then copy with `non_blocking=True`: the
copy is queued behind the previous step, runs at full bus speed, and the host moves on.
"""
import argparse
import json
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

WARMUP = 10


class SmallCNN(nn.Module):
    def __init__(self, num_classes=100):
        super().__init__()
        chans = [3, 64, 128, 256, 512]
        self.stages = nn.ModuleList(
            nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                          nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                          nn.MaxPool2d(2))
            for cin, cout in zip(chans[:-1], chans[1:]))
        self.fc = nn.Linear(chans[-1], num_classes)

    def forward(self, x):
        for stage in self.stages:
            x = stage(x)
        return self.fc(x.mean(dim=(2, 3)))


def load_cache(num_batches=32, batch_size=128):
    g = torch.Generator().manual_seed(0)
    cache = []
    for _ in range(num_batches):
        images = torch.rand(batch_size, 3, 64, 64, generator=g)
        labels = torch.randint(0, 100, (batch_size,), generator=g)
        cache.append((images.pin_memory(), labels.pin_memory()))
    return cache


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True
    cache = load_cache()
    model = SmallCNN().cuda().to(memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)

    def train_step(i):
        images, labels = cache[i % len(cache)]
        images = images.to("cuda", non_blocking=True)
        labels = labels.to("cuda", non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(images.contiguous(memory_format=torch.channels_last)), labels)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    for i in range(WARMUP):
        train_step(i)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for i in range(args.steps):
        train_step(i)
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - start
    print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))


if __name__ == "__main__":
    main()
