"""GPU test script (issue 16, item 4): a PyTorch loop whose host does plain Python between steps —
a sleep in one function, a busy loop in another, no CUDA call in either — so only the sampler can
name those lines. check_sampling.py expects samples at both MARK lines and the GPU idle there
explained by the host-gap analysis."""
import time

import torch

STEPS = 20


def load_batch(step):
    time.sleep(0.02)  # MARK:sleep
    return step


def collate(step):
    deadline = time.perf_counter() + 0.01
    total = 0
    while time.perf_counter() < deadline:  # MARK:spin
        total += step
    return total


def main():
    x = torch.randn(1024, 1024, device="cuda")
    for step in range(STEPS):
        load_batch(step)
        collate(step)
        y = x @ x
        value = y.sum().item()
    print("done %.1f" % value, flush=True)


if __name__ == "__main__":
    main()
