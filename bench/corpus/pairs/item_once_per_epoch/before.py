"""Autoencoder on synthetic 784-dimensional "digit" vectors kept on the GPU, trained in
epochs of 100 mini-batches, with the epoch's mean loss logged after each epoch.

Pattern: the epoch summary reads the summed loss with `epoch_loss.item()` once per epoch,
i.e. one wait for the GPU every 100 steps.
Fix: keep the per-epoch losses on the GPU and read them all after training. One wait per
100 steps costs about one step's launch gap out of 100: the fix should save close to nothing.
"""
import argparse
import json
import sys
import time

import torch
import torch.nn as nn

STEPS_PER_EPOCH = 100
WARMUP = 20


class AutoEncoder(nn.Module):
    def __init__(self, dim=784, hidden=1024, code=32):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                     nn.Linear(hidden, code))
        self.decoder = nn.Sequential(nn.Linear(code, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                     nn.Linear(hidden, dim), nn.Sigmoid())

    def forward(self, x):
        return self.decoder(self.encoder(x))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=500, help="training steps (a multiple of 100)")
    args = parser.parse_args()

    torch.manual_seed(0)
    data = (torch.rand(60_000, 784, device="cuda") < 0.2).float()
    model = AutoEncoder().cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.BCELoss()
    epoch_means = []

    def train(num_steps):
        perm = torch.randperm(data.shape[0], device="cuda")
        epoch_loss = torch.zeros((), device="cuda")
        for step in range(num_steps):
            batch = data[perm[(step * 512) % 59_904:][:512]]
            loss = criterion(model(batch), batch)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            epoch_loss += loss.detach()
            if (step + 1) % STEPS_PER_EPOCH == 0:
                epoch_means.append(epoch_loss.item() / STEPS_PER_EPOCH)  # FIX:
                epoch_loss.zero_()

    train(WARMUP)
    torch.cuda.synchronize()
    start = time.perf_counter()
    train(args.steps)
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - start
    print("epoch losses:", " ".join(f"{m:.4f}" for m in epoch_means), file=sys.stderr)
    print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))


if __name__ == "__main__":
    main()
