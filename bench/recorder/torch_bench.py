#!/usr/bin/env python3
"""PyTorch overhead workloads for the recorder benchmark.
  torch_bench.py WORKLOAD MODE      WORKLOAD: mlp | launch | gemm     MODE: plain | profiler
mlp:    GEMM-heavy bf16 MLP training (4 x Linear 4096, batch 8192), 30 timed steps, loss.item()
        every 10 steps.
launch: launch-bound loop: 4 tiny elementwise ops then torch.cuda.synchronize(), 2000 iterations.
gemm:   launch-bound loop of issue 19: a 512x512 fp16 GEMM, relu and a scale, then
        torch.cuda.synchronize(), 1000 iterations.
profiler: the timed loop runs inside torch.profiler.profile(activities=[CPU, CUDA]).
Prints one line: 'RESULT workload mode ms'. Timing covers the loop only (after warm-up)."""
import sys
import time

import torch


def mlp_setup():
    torch.manual_seed(0)
    layers = []
    for _ in range(4):
        layers += [torch.nn.Linear(4096, 4096), torch.nn.GELU()]
    model = torch.nn.Sequential(*layers).cuda().to(torch.bfloat16)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(8192, 4096, device="cuda", dtype=torch.bfloat16)
    y = torch.randn(8192, 4096, device="cuda", dtype=torch.bfloat16)

    def step(i):
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        if i % 10 == 9:
            loss.item()
    return step, 30


def launch_setup():
    a = torch.zeros(256, device="cuda")

    def step(i):
        a.add_(1.0)
        a.mul_(0.5)
        a.add_(2.0)
        a.mul_(0.25)
        torch.cuda.synchronize()
    return step, 2000


def gemm_setup():
    torch.manual_seed(0)
    a = torch.randn(512, 512, device="cuda", dtype=torch.float16)
    b = torch.randn(512, 512, device="cuda", dtype=torch.float16) / 512 ** 0.5

    def step(i):
        torch.relu(a @ b) * 0.5
        torch.cuda.synchronize()
    return step, 1000


SETUPS = {"mlp": mlp_setup, "launch": launch_setup, "gemm": gemm_setup}


def main():
    workload, mode = sys.argv[1], sys.argv[2]
    step, n = SETUPS[workload]()
    for i in range(5 if workload == "mlp" else 100):
        step(i)
    torch.cuda.synchronize()
    if mode == "profiler":
        from torch.profiler import ProfilerActivity, profile
        prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
        prof.__enter__()
    t0 = time.perf_counter()
    for i in range(n):
        step(i)
    torch.cuda.synchronize()
    ms = (time.perf_counter() - t0) * 1000
    if mode == "profiler":
        prof.__exit__(None, None, None)
    print("RESULT %s %s %.3f" % (workload, mode, ms), flush=True)


if __name__ == "__main__":
    main()
