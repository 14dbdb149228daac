"""Keeps the GPU busy for ~2.5 s with back-to-back bf16 GEMMs (tst_recorder_gpu's power samples:
NVML must find the GPU busy in at least ten 20 Hz samples, and steady, busy for a second already,
in at least five)."""
import time

import torch

a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
torch.cuda.synchronize()
end = time.time() + 2.5
while time.time() < end:
    for _ in range(20):
        b = a @ a
    torch.cuda.synchronize()
print("done", float(b[0, 0]))
