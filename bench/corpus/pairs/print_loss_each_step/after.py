"""Two-moons classifier: a tiny MLP trained with Adam on mini-batches of 2-D points.

The whole data set lives on the GPU; each step samples 1024 points, so a step is a few dozen
tiny kernels and the time goes to launching them from Python.
Pattern: `print("step", step, "loss", loss)` every step. Printing a CUDA tensor copies it to
the host, which waits for the step to finish, and formats it.
Fix: keep the losses on the GPU and print their mean every 100 steps.
"""
import argparse
import json
import math
import time

import torch
import torch.nn as nn

WARMUP = 20


def two_moons(n, noise=0.1):
    t = torch.rand(n) * math.pi
    upper = torch.stack([t.cos(), t.sin()], dim=1)
    lower = torch.stack([1 - t.cos(), 0.5 - t.sin()], dim=1)
    label = torch.randint(0, 2, (n,))
    points = torch.where(label[:, None] == 0, upper, lower) + noise * torch.randn(n, 2)
    return points, label


parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=600)
args = parser.parse_args()

torch.manual_seed(0)
points, labels = two_moons(100_000)
points, labels = points.cuda(), labels.cuda()
net = nn.Sequential(nn.Linear(2, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 2)).cuda()
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()
window = []  # the last 100 losses, on the GPU


def step_fn(step):
    idx = torch.randint(0, points.shape[0], (1024,), device="cuda")
    loss = loss_fn(net(points[idx]), labels[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    window.append(loss.detach())
    if (step + 1) % 100 == 0:
        print("step", step, "loss", torch.stack(window).mean())
        window.clear()


for step in range(WARMUP):
    step_fn(step)
torch.cuda.synchronize()
start = time.perf_counter()
for step in range(args.steps):
    step_fn(step)
torch.cuda.synchronize()
loop_s = time.perf_counter() - start
print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))
