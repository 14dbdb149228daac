"""GPU test script (issue 14): a PyTorch loop with a .item() each step runs for ~2 s after CUDA
start-up, writes the CLOCK_MONOTONIC time of its last completed read to the file named by argv[1],
then SIGKILLs itself. The GPU test compares that time with the last sync in the session."""
import os
import signal
import sys
import time

import torch

x = torch.randn(512, 512, device="cuda")
start = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
last = start
while last - start < 2_000_000_000:
    y = torch.relu(x @ x) * 0.5
    y.sum().item()
    last = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
with open(sys.argv[1], "w") as progress:
    progress.write(f"{last}\n")
os.kill(os.getpid(), signal.SIGKILL)
