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


static_x = inputs[0].clone()
static_y = targets[0].clone()
# warm up on a side stream before capture (cuBLAS handles, optimizer state)
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for i in range(WARMUP):
        static_x.copy_(inputs[i % 1000])
        static_y.copy_(targets[i % 1000])
        train_step(static_x, static_y)
torch.cuda.current_stream().wait_stream(side)
graph = torch.cuda.CUDAGraph()
optimizer.zero_grad(set_to_none=True)
with torch.cuda.graph(graph):
    static_loss = train_step(static_x, static_y)


def step(i):
    static_x.copy_(inputs[i % 1000])
    static_y.copy_(targets[i % 1000])
    graph.replay()


torch.cuda.synchronize()
start = time.perf_counter()
for i in range(args.steps):
    step(i)
torch.cuda.synchronize()
loop_s = time.perf_counter() - start
print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))
