"""Tabular classifier trained from a DataLoader over an in-memory TensorDataset.

The DataLoader runs in the main process (num_workers=0): it indexes 512 samples one by one,
collates and pins them, which costs the host a few milliseconds per batch, about as long as
the GPU takes for the step (three 4096-wide fp32 layers).
Pattern: `running_loss += loss.item()` every step, so the next batch is collated only after
the GPU has finished this step.
Fix: accumulate the running loss on the GPU (`running_loss += loss.detach()`) and read it
after the loop; collating the next batch then overlaps the GPU's step.
"""
import argparse
import json
import sys
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

WARMUP = 10


def forever(loader):
    while True:
        yield from loader


def main():
    parser = argparse.ArgumentParser(description="tabular classifier")
    parser.add_argument("--steps", type=int, default=180)
    args = parser.parse_args()

    torch.manual_seed(0)
    features = torch.randn(32768, 256)
    labels = (features[:, :10].argmax(dim=1) + (features[:, 10] > 1).long()) % 10
    loader = DataLoader(TensorDataset(features, labels), batch_size=512, shuffle=True,
                        pin_memory=True, drop_last=True)
    model = nn.Sequential(
        nn.Linear(256, 4096), nn.ReLU(),
        nn.Linear(4096, 4096), nn.ReLU(),
        nn.Linear(4096, 4096), nn.ReLU(),
        nn.Linear(4096, 10),
    ).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    batches = forever(loader)

    def train(num_steps):
        running_loss = 0.0
        for _ in range(num_steps):
            x, y = next(batches)
            x = x.cuda(non_blocking=True)
            y = y.cuda(non_blocking=True)
            optimizer.zero_grad(set_to_none=True)
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            running_loss += loss.item()  # FIX:
        return running_loss

    train(WARMUP)
    torch.cuda.synchronize()
    start = time.perf_counter()
    running_loss = train(args.steps)
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - start

    print(f"mean loss {float(running_loss) / args.steps:.4f}", file=sys.stderr)
    print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))


if __name__ == "__main__":
    main()
