"""Small CNN image classifier with CPU-side data augmentation.

Each step draws a random batch of 40x40 uint8 images from a CPU array, crops a random 32x32
window and flips half of them in a per-sample Python loop (the host's share of the step),
then pins the batch and copies it to the GPU without blocking.
Pattern: `history.append(float(loss))` every step: float() of a CUDA tensor waits for the
GPU, so the next batch's augmentation cannot run while the GPU trains on this one.
Fix: append `loss.detach()` and convert the history to floats once, after the loop.
"""
import argparse
import json
import random
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

WARMUP = 10
BATCH = 256


def conv_bn(cin, cout):
    return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]


def augment(images, rng):
    """Random 32x32 crop and horizontal flip of each image of a uint8 [B, 3, 40, 40] batch."""
    out = torch.empty(images.shape[0], 3, 32, 32, dtype=torch.uint8)
    for i in range(images.shape[0]):
        dy, dx = rng.randrange(9), rng.randrange(9)
        crop = images[i, :, dy:dy + 32, dx:dx + 32]
        out[i] = crop.flip(2) if rng.random() < 0.5 else crop
    return out


parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=120)
args = parser.parse_args()

torch.manual_seed(0)
rng = random.Random(0)
torch.backends.cudnn.benchmark = True
train_images = torch.randint(0, 256, (8192, 3, 40, 40), dtype=torch.uint8)
train_labels = torch.randint(0, 10, (8192,))
mean = torch.tensor([0.49, 0.48, 0.45], device="cuda").view(1, 3, 1, 1) * 255
std = torch.tensor([0.25, 0.24, 0.26], device="cuda").view(1, 3, 1, 1) * 255

model = nn.Sequential(
    *conv_bn(3, 64), *conv_bn(64, 128), nn.MaxPool2d(2),
    *conv_bn(128, 256), nn.MaxPool2d(2), *conv_bn(256, 256),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(256, 10),
).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
history = []


def train_step():
    idx = torch.randint(0, train_images.shape[0], (BATCH,))
    images = augment(train_images[idx], rng).pin_memory().cuda(non_blocking=True)
    labels = train_labels[idx].pin_memory().cuda(non_blocking=True)
    x = (images.float() - mean) / std
    loss = F.cross_entropy(model(x), labels)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    history.append(float(loss))  # FIX:


for _ in range(WARMUP):
    train_step()
torch.cuda.synchronize()
t0 = time.perf_counter()
for _ in range(args.steps):
    train_step()
torch.cuda.synchronize()
loop_s = time.perf_counter() - t0

print(f"loss {history[0]:.3f} -> {history[-1]:.3f}", file=sys.stderr)
print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))
