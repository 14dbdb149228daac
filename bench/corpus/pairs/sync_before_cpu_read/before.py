"""Batch inference of an image classifier (a small ResNet-style CNN in bf16) whose
predictions are moved to the host after every batch for a downstream CPU consumer.

Pattern: an explicit `torch.cuda.synchronize()` right before `.cpu()`, "to make sure the
results are ready". The `.cpu()` copy on the next line waits for the GPU anyway.
Fix: drop the explicit synchronize. The host still waits for each batch in `.cpu()`, so the
fix should save close to nothing (one redundant sync call per batch).
"""
import argparse
import json
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

WARMUP = 10


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(x + self.bn2(self.conv2(out)))


def make_resnet(num_classes=1000):
    layers = [nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
              nn.MaxPool2d(3, stride=2, padding=1)]
    channels = 64
    for width in (64, 128, 256, 512):
        if width != channels:
            layers += [nn.Conv2d(channels, width, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(width), nn.ReLU()]
            channels = width
        layers += [ResidualBlock(width), ResidualBlock(width)]
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(channels, num_classes)]
    return nn.Sequential(*layers)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True
    model = make_resnet().cuda().eval().to(memory_format=torch.channels_last)
    images = [torch.randn(64, 3, 224, 224, device="cuda").contiguous(memory_format=torch.channels_last)
              for _ in range(8)]
    predictions = []

    @torch.inference_mode()
    def infer(num_batches):
        for i in range(num_batches):
            with torch.autocast("cuda", dtype=torch.bfloat16):
                logits = model(images[i % len(images)])
            top5 = logits.topk(5, dim=1).indices
            torch.cuda.synchronize()  # FIX:
            predictions.append(top5.cpu())

    infer(WARMUP)
    torch.cuda.synchronize()
    start = time.perf_counter()
    infer(args.steps)
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - start
    print(f"{len(predictions)} batches, first top-5 {predictions[0][0].tolist()}", file=sys.stderr)
    print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))


if __name__ == "__main__":
    main()
