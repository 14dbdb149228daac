"""A PyTorch program that runs torch.profiler twice (with CUDA activities) while it is recorded:
stallscope-record owns CUPTI, so the profiler gets no GPU events and Stallscope says so once.
Prints how many GPU kernels the profiler saw, and keeps syncing so the recording has work."""
import torch
from torch.profiler import ProfilerActivity, profile

x = torch.randn(256, 256, device="cuda")
for _ in range(2):
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            y = (x @ x).relu()
            y.sum().item()
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    print("torch.profiler GPU events:", len(kernels), flush=True)
