"""Train a wide residual MLP on synthetic regression data (bf16 autocast, AdamW).

Pattern: the training log reads the loss with `loss.item()` after every step.
Fix: keep each step's loss on the GPU (`loss.detach()`) and read them all once after the loop.

Each step is ~7 TFLOP of large matrix products, far longer than the Python that launches it,
so the host has nothing else to do while it waits: the fix should save close to nothing.
"""
import argparse
import json
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

WARMUP = 10


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args()

    torch.manual_seed(0)
    dim, batch = 2048, 8192
    model = nn.Sequential(*[Block(dim) for _ in range(4)], nn.Linear(dim, 1)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(batch, dim, device="cuda")
    y = x[:, :8].sum(dim=1, keepdim=True).sin()
    losses = []

    def train_step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            pred = model(x)
        loss = F.mse_loss(pred.float(), y)
        loss.backward()
        opt.step()
        losses.append(loss.detach())

    for _ in range(WARMUP):
        train_step()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(args.steps):
        train_step()
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - start
    losses = torch.stack(losses).tolist()

    print(f"first loss {losses[0]:.4f}, last loss {losses[-1]:.4f}", file=sys.stderr)
    print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))


if __name__ == "__main__":
    main()
