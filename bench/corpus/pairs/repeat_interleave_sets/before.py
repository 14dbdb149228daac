"""DeepSets regression on variable-size point sets, packed without padding.

Each batch holds 256 sets of 8-64 points, concatenated into one [total_points, 3] tensor with
a vector of set sizes (prepared once on the host, then kept on the GPU). Points go through a
per-point MLP, are summed per set with index_add_, then a set-level MLP predicts the target.
Pattern: the set id of every point is built with
`torch.repeat_interleave(torch.arange(num_sets), sizes)`: without output_size, PyTorch has to
read sizes.sum() back to the host to size the result, a wait every step.
Fix: the total is already known on the host, it is the packed tensor's length:
pass `output_size=points.shape[0]`.
"""
import argparse
import json
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

WARMUP = 20
SETS_PER_BATCH, HIDDEN = 256, 256


def make_batches(num_batches, generator):
    batches = []
    for _ in range(num_batches):
        sizes = torch.randint(8, 65, (SETS_PER_BATCH,), generator=generator)
        points = torch.randn(int(sizes.sum()), 3, generator=generator)
        # target: the mean distance of each set's points from the origin
        set_id = torch.repeat_interleave(torch.arange(SETS_PER_BATCH), sizes)
        target = torch.zeros(SETS_PER_BATCH).index_add_(0, set_id, points.norm(dim=1)) / sizes
        batches.append((points.cuda(), sizes.cuda(), target.cuda()))
    return batches


class DeepSets(nn.Module):
    def __init__(self):
        super().__init__()
        self.phi = nn.Sequential(nn.Linear(3, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU())
        self.rho = nn.Sequential(nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, 1))

    def forward(self, points, sizes):
        set_id = torch.repeat_interleave(torch.arange(sizes.shape[0], device=sizes.device), sizes)  # FIX:
        pooled = torch.zeros(sizes.shape[0], HIDDEN, device=points.device).index_add_(0, set_id, self.phi(points))
        return self.rho(pooled / sizes[:, None]).squeeze(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=500)
    args = parser.parse_args()

    torch.manual_seed(0)
    batches = make_batches(64, torch.Generator().manual_seed(0))
    model = DeepSets().cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def train_step(i):
        points, sizes, target = batches[i % len(batches)]
        loss = F.mse_loss(model(points, sizes), target)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    for i in range(WARMUP):
        train_step(i)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for i in range(args.steps):
        train_step(i)
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - start
    print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))


if __name__ == "__main__":
    main()
