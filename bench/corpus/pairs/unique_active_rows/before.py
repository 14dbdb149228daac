"""Click-through-rate model over sparse categorical features (one shared embedding table,
field sums, an MLP), trained with Adam; an L2 penalty on the embedding rows that the batch
actually uses, as is common for large sparse tables.

Pattern: the rows the batch touches are found with `torch.unique(ids)`; unique's output
size depends on the data, so it waits for the GPU in the middle of every step.
Fix: mark the touched rows in a fixed-size boolean vector (`index_fill_`) and weight the
per-row penalty by it: the same penalty and gradient, static shapes, no wait.
"""
import argparse
import json
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

WARMUP = 20
NUM_ROWS, FIELDS, DIM, BATCH = 100_000, 26, 64, 2048


class CTRModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(NUM_ROWS, DIM)
        nn.init.normal_(self.embedding.weight, std=0.01)
        self.mlp = nn.Sequential(nn.Linear(FIELDS * DIM, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                                 nn.Linear(256, 1))

    def forward(self, ids):
        return self.mlp(self.embedding(ids).flatten(1)).squeeze(1)


def sample_batch(field_offsets):
    # Zipf-like ids: most traffic goes to a few rows of each field
    u = torch.rand(BATCH, FIELDS, device="cuda")
    ids = (u ** 3 * (NUM_ROWS // FIELDS)).long() + field_offsets
    clicks = ((ids[:, 0] + ids[:, 3]) % 7 == 0).float()
    return ids, clicks


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--l2", type=float, default=1e-5)
    args = parser.parse_args()

    torch.manual_seed(0)
    field_offsets = torch.arange(FIELDS, device="cuda") * (NUM_ROWS // FIELDS)
    model = CTRModel().cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def train_step():
        ids, clicks = sample_batch(field_offsets)
        loss = F.binary_cross_entropy_with_logits(model(ids), clicks)
        rows = torch.unique(ids)  # FIX:
        penalty = model.embedding.weight[rows].pow(2).sum()
        loss = loss + args.l2 * penalty
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    for _ in range(WARMUP):
        train_step()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(args.steps):
        train_step()
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - start
    print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))


if __name__ == "__main__":
    main()
