"""GPU test script (issue 16): one rank of `torchrun --nproc-per-node 2` with both ranks on one GPU.
A few matmuls and an .item() each; no process group (NCCL refuses two ranks on one GPU), so each
rank's session holds its own syncs and its rank comes from torchrun's environment alone."""
import os

import torch

STEPS = 5


def main():
    rank = int(os.environ["RANK"])
    torch.manual_seed(rank)
    x = torch.randn(512, 512, device="cuda")
    for _ in range(STEPS):
        y = x @ x
        total = y.sum().item()  # a sync per step
    print(f"rank {rank}: {total:.1f}", flush=True)


if __name__ == "__main__":
    main()
