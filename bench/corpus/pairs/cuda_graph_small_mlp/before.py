"""Small MLP policy/value-style network trained on tiny batches (64 x 32 features), with SGD
momentum, the data already on the GPU. No syncs in the loop.

Each step is ~40 kernels of a few microseconds; launching them one by one from Python takes
several times longer than the GPU needs to run them, so the GPU mostly waits for launches.
Fix: capture the whole step (forward, backward, optimizer) once as a CUDA graph with
`torch.cuda.graph` (after a warm-up on a side stream, as the PyTorch docs require) and replay
it each step after copying the batch into the graph's static input tensors.
"""
import argparse
import json
import time

import torch
import torch.nn as nn

WARMUP = 20
BATCH, FEATURES, HIDDEN, OUTPUTS = 64, 32, 256, 8

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=1000)
args = parser.parse_args()

torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(FEATURES, HIDDEN), nn.ReLU(),
    nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
    nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
    nn.Linear(HIDDEN, OUTPUTS),
).cuda()
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

inputs = torch.randn(1000, BATCH, FEATURES, device="cuda")
targets = torch.randn(1000, BATCH, OUTPUTS, device="cuda")


def train_step(x, y):
    optimizer.zero_grad(set_to_none=True)
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


def step(i):
    train_step(inputs[i % 1000], targets[i % 1000])


for i in range(WARMUP):
    step(i)
torch.cuda.synchronize()
start = time.perf_counter()
for i in range(args.steps):  # FIX-RULE: launch-bound
    step(i)
torch.cuda.synchronize()
loop_s = time.perf_counter() - start
print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))
