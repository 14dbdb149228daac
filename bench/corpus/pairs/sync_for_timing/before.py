"""Character-level language model (a stack of causal dilated 1-D convolutions, WaveNet style)
with per-step timing for a throughput report.

Pattern: each step is timed with the wall clock, and `torch.cuda.synchronize()` is called
before reading the clock so that the time includes the GPU's work: the host waits for
every step to finish before it may queue the next one.
Fix: time the steps with CUDA events (`begin.record()` / `end.record()` around the step)
and read `elapsed_time` once after the loop.
"""
import argparse
import json
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

WARMUP = 20
VOCAB, CHANNELS, SEQ, BATCH = 96, 256, 256, 64


class CausalConv(nn.Module):
    def __init__(self, channels, dilation):
        super().__init__()
        self.dilation = dilation
        self.conv = nn.Conv1d(channels, 2 * channels, kernel_size=2, dilation=dilation)
        self.proj = nn.Conv1d(channels, channels, kernel_size=1)

    def forward(self, x):
        h = self.conv(F.pad(x, (self.dilation, 0)))
        return x + self.proj(F.glu(h, dim=1))


class CharLM(nn.Module):
    def __init__(self, layers=8):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, CHANNELS)
        self.blocks = nn.Sequential(*[CausalConv(CHANNELS, 2 ** (i % 6)) for i in range(layers)])
        self.out = nn.Conv1d(CHANNELS, VOCAB, kernel_size=1)

    def forward(self, x):
        return self.out(self.blocks(self.embed(x).transpose(1, 2)))


parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=250)
args = parser.parse_args()

torch.manual_seed(0)
text = torch.randint(0, VOCAB, (2_000_000,), device="cuda")
model = CharLM().cuda()
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
criterion = nn.CrossEntropyLoss()
step_ms = []


def train_step():
    starts = torch.randint(0, text.numel() - SEQ - 1, (BATCH, 1), device="cuda")
    idx = starts + torch.arange(SEQ + 1, device="cuda")
    chunk = text[idx]
    logits = model(chunk[:, :-1])
    loss = criterion(logits, chunk[:, 1:])
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()


def timed_step():
    t0 = time.perf_counter()
    train_step()
    torch.cuda.synchronize()  # FIX:
    step_ms.append((time.perf_counter() - t0) * 1e3)


for _ in range(WARMUP):
    timed_step()
torch.cuda.synchronize()
start = time.perf_counter()
for _ in range(args.steps):
    timed_step()
torch.cuda.synchronize()
loop_s = time.perf_counter() - start

times = step_ms[WARMUP:]
print(f"step time median {statistics.median(times):.3f} ms, "
      f"{BATCH * SEQ / statistics.median(times) * 1e3:.0f} chars/s", file=sys.stderr)
print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))
