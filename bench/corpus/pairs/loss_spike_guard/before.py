"""Multivariate time-series forecaster (2-layer GRU) trained on sliding windows, with a guard
that skips batches whose loss spikes far above its running average.

The series lives on the host; each step slices 256 random windows out of it, stacks and pins
them, and copies them to the GPU. The GRU's forward and backward (cuDNN) take several
milliseconds, much longer than building a batch.
Pattern: `if loss > 3 * loss_avg: return` between the forward and the backward pass: the
comparison of two CUDA tensors in an `if` waits for the forward pass to finish.
Fix: never branch on the host: multiply the loss by `(loss <= limit)`, so an outlier batch
gives zero gradients (plain SGD then leaves the weights alone), and always run backward.
The wait sits in the middle of the step, and the next batch is sliced while the GPU runs the
long backward pass anyway: the fix should save close to nothing.
"""
import argparse
import json
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

WARMUP = 10
WINDOW, HORIZON, BATCH, CHANNELS = 128, 1, 256, 8


class Forecaster(nn.Module):
    def __init__(self, channels, hidden=512):
        super().__init__()
        self.rnn = nn.GRU(channels, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, channels)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out[:, -1])


def make_series(length, channels):
    t = torch.arange(length, dtype=torch.float32)
    periods = torch.linspace(20, 400, channels)
    series = torch.sin(2 * torch.pi * t[:, None] / periods) + 0.1 * torch.randn(length, channels)
    return series.cumsum(0) * 0.01 + series


def sample_batch(series, generator):
    starts = torch.randint(0, series.shape[0] - WINDOW - HORIZON, (BATCH,), generator=generator).tolist()
    windows = torch.stack([series[s:s + WINDOW + HORIZON] for s in starts])
    return windows[:, :WINDOW], windows[:, WINDOW]


parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=60)
args = parser.parse_args()

torch.manual_seed(0)
gen = torch.Generator().manual_seed(0)
series = make_series(1_000_000, CHANNELS)
model = Forecaster(CHANNELS).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loss_avg = torch.tensor(10.0, device="cuda")
skipped = 0


def train_step():
    global skipped
    x, y = sample_batch(series, gen)
    x = x.pin_memory().cuda(non_blocking=True)
    y = y.pin_memory().cuda(non_blocking=True)
    loss = F.mse_loss(model(x), y)
    limit = 3.0 * loss_avg
    loss_avg.lerp_(loss.detach(), 0.05)
    if loss > limit:  # FIX:
        skipped += 1
        return
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


for _ in range(WARMUP):
    train_step()
torch.cuda.synchronize()
start = time.perf_counter()
for _ in range(args.steps):
    train_step()
torch.cuda.synchronize()
loop_s = time.perf_counter() - start
print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))
