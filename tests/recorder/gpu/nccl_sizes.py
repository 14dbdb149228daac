"""GPU test script (issue 16): one rank of `torchrun --nproc-per-node 2` on two GPUs, NCCL's
collectives of known sizes, so that tst_recorder_gpu can check what NCCL's profiler plugin told
the recorder: three all-reduces of 1,048,576 fp32 (4 MiB), one of 3,145,728 bf16 (6 MiB), one
broadcast of 1,000 int64 (8,000 B)."""
import os

import torch
import torch.distributed as dist


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    floats = torch.ones(1 << 20, device="cuda")
    for _ in range(3):
        dist.all_reduce(floats)
    halves = torch.ones(3 << 20, device="cuda", dtype=torch.bfloat16)
    dist.all_reduce(halves)
    longs = torch.arange(1000, device="cuda", dtype=torch.int64)
    dist.broadcast(longs, src=0)
    torch.cuda.synchronize()
    print(f"rank {dist.get_rank()}: {floats[0].item():.0f} {halves[0].item():.0f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
