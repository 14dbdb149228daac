"""House-price regression from raw records, with gradient clipping and a guard against bad steps.

The records are Python dicts (as read from a CSV or JSON file); the Dataset turns each one into
features in Python, and a DataLoader (num_workers=0) batches them: a few milliseconds of host
work per batch of 256, about twice the GPU's step (an MLP with 4096-wide fp32 layers).
Pattern: skip the update when the gradient norm is inf/NaN,
`if torch.isfinite(grad_norm): optimizer.step()`. The `if` on a CUDA tensor waits for the
backward pass and the clipping to finish, so the next batch is built only after the GPU is done.
Fix: decide on the GPU: zero the gradients when the norm is not finite and always step. With
plain SGD (no momentum, no weight decay) a zero gradient leaves the weights unchanged, as the
skip did.
"""
import argparse
import json
import math
import random
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

WARMUP = 10
NEIGHBOURHOODS = ["north", "south", "east", "west", "centre", "harbour", "hills", "old town"]


def fake_records(n, seed=0):
    rng = random.Random(seed)
    records = []
    for _ in range(n):
        area = rng.uniform(30, 300)
        rooms = rng.randint(1, 8)
        year = rng.randint(1900, 2024)
        hood = rng.choice(NEIGHBOURHOODS)
        price = 2000 * area * (1.3 if hood in ("centre", "harbour") else 1.0) + 5000 * rooms - 300 * (2024 - year)
        records.append({"area": area, "rooms": rooms, "year": year, "neighbourhood": hood,
                        "lot": rng.uniform(0, 2000), "garage": rng.random() < 0.4, "price": price})
    return records


class HouseDataset(Dataset):
    def __init__(self, records):
        self.records = records

    def __len__(self):
        return len(self.records)

    def __getitem__(self, i):
        r = self.records[i]
        hood = [float(r["neighbourhood"] == h) for h in NEIGHBOURHOODS]
        x = [r["area"] / 100, r["rooms"] / 4, (r["year"] - 1960) / 40, math.log1p(r["lot"]) / 7,
             float(r["garage"])] + hood
        return torch.tensor(x), torch.tensor(math.log(max(r["price"], 1e4)) - 12)


class Trainer:
    def __init__(self, model, lr=0.01, max_norm=1.0):
        self.model = model
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.SGD(self.params, lr=lr)
        self.max_norm = max_norm
        self.skipped = 0

    def step(self, x, y):
        loss = nn.functional.smooth_l1_loss(self.model(x).squeeze(-1), y)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        grad_norm = nn.utils.clip_grad_norm_(self.params, self.max_norm)
        if torch.isfinite(grad_norm):  # FIX:
            self.optimizer.step()
        else:
            self.skipped += 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=150)
    args = parser.parse_args()

    torch.manual_seed(0)
    loader = DataLoader(HouseDataset(fake_records(50_000)), batch_size=256, shuffle=True,
                        drop_last=True, pin_memory=True)
    width = 4096
    model = nn.Sequential(nn.Linear(5 + len(NEIGHBOURHOODS), width), nn.GELU(),
                          nn.Linear(width, width), nn.GELU(),
                          nn.Linear(width, width), nn.GELU(),
                          nn.Linear(width, 1)).cuda()
    trainer = Trainer(model)

    def run(num_steps):
        done = 0
        while done < num_steps:
            for x, y in loader:
                trainer.step(x.cuda(non_blocking=True), y.cuda(non_blocking=True))
                done += 1
                if done == num_steps:
                    break

    run(WARMUP)
    torch.cuda.synchronize()
    start = time.perf_counter()
    run(args.steps)
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - start
    print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))


if __name__ == "__main__":
    main()
