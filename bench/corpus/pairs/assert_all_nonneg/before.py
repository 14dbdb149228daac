"""Gray-Scott reaction-diffusion on a 1024x1024 periodic grid, explicit Euler steps.

Each step is a dozen element-wise kernels of a few microseconds each: the loop is bound by
launching them from Python.
Pattern: a sanity check every step, `assert (v >= 0).all(), "negative concentration"`:
assert calls bool() on a CUDA tensor, which waits for the GPU.
Fix: keep the check but make it asynchronous, `torch._assert_async((v >= 0).all())`: the
GPU raises a device-side error if it ever fails, and the host never waits.
"""
import argparse
import json
import time

import torch

WARMUP = 50


def laplacian(a):
    return (torch.roll(a, 1, 0) + torch.roll(a, -1, 0) + torch.roll(a, 1, 1) + torch.roll(a, -1, 1) - 4 * a)


def simulate(u, v, steps, feed=0.037, kill=0.06, du=0.1, dv=0.05, dt=1.0):
    for _ in range(steps):
        uvv = u * v * v
        u = u + dt * (du * laplacian(u) - uvv + feed * (1 - u))
        v = v + dt * (dv * laplacian(v) + uvv - (feed + kill) * v)
        assert (v >= 0).all(), "negative concentration"  # FIX:
    return u, v


def main():
    parser = argparse.ArgumentParser(description="Gray-Scott reaction-diffusion")
    parser.add_argument("--steps", type=int, default=4000)
    args = parser.parse_args()

    torch.manual_seed(0)
    n = 1024
    u = torch.ones(n, n, device="cuda")
    v = torch.zeros(n, n, device="cuda")
    seeds = torch.rand(n, n, device="cuda") < 0.002
    v[seeds] = 0.5
    u[seeds] = 0.5

    u, v = simulate(u, v, WARMUP)
    torch.cuda.synchronize()
    start = time.perf_counter()
    u, v = simulate(u, v, args.steps)
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - start
    print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))


if __name__ == "__main__":
    main()
