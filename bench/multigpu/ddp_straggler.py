"""A 2-rank DDP training loop with an optional straggler (issue 16).

Run under torchrun, e.g.
  torchrun --standalone --nproc-per-node 2 ddp_straggler.py --straggler-rank 1 --delay-ms 20

Every rank trains the same MLP on random data and reads the loss with .item() each step (the
sync a user would see). --straggler-rank R makes rank R do --delay-ms of plain host work (no CUDA
call) in load_batch() before each step, so its gradients reach the all-reduce late and every other
rank waits for it inside the collective: their .item() blocks, while the rank to fix is R.
"""
import argparse
import os
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def load_batch(rank, args, step):
    if rank == args.straggler_rank:
        deadline = time.perf_counter() + args.delay_ms / 1000.0
        while time.perf_counter() < deadline:  # host work: no CUDA call in here
            pass
    return step


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--straggler-rank", type=int, default=-1)
    parser.add_argument("--delay-ms", type=float, default=20.0)
    parser.add_argument("--width", type=int, default=2048)
    args = parser.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.manual_seed(rank)
    layers = []
    for _ in range(4):
        layers += [torch.nn.Linear(args.width, args.width), torch.nn.ReLU()]
    model = DistributedDataParallel(torch.nn.Sequential(*layers).cuda(), device_ids=[local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(512, args.width, device="cuda")

    # The loop's wall time on rank 0 (every rank starts it together), for holding a straggler
    # finding's predicted saving against the measured difference (bench/multigpu/straggler_pairs.sh).
    torch.cuda.synchronize()
    dist.barrier()
    loop_start = time.perf_counter()
    for step in range(args.steps):
        load_batch(rank, args, step)
        loss = model(x).square().mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        value = loss.item()  # the sync: blocks until this rank's GPU (and the all-reduce) is done
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - loop_start
    if rank == 0:
        print(f"rank {rank}: {args.steps} steps, last loss {value:.4f}, loop {loop_s:.6f} s",
              flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
