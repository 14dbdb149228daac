#!/usr/bin/env python3
"""The README's sample: a PyTorch training loop whose per-step .item() (the classic stall) keeps
the host's batch preparation (~1 ms of Python per step) from overlapping the GPU's step, NVTX
ranges per step, and a .cpu() evaluation every 50 steps. Recorded with
  stallscope-record -o resources/sample.stallscope -- python3 bench/recorder/sample_train.py
--fixed runs the fix the sample's finding recommends: the losses stay on the GPU and are read once
every 50 steps, with the evaluation. Both print the training loop's time (between two device
syncs), so the finding's saving can be held against the fix's (bench/recorder/sample_fix.sh)."""
import sys
import time

import torch


def prepare_batch(step, work=12000):
    """Host-side batch preparation (augmentation, tokenization, ...): deterministic pure Python."""
    acc = step
    for i in range(work):
        acc = (acc * 1103515245 + i) % 2147483648
    return acc


def main(fixed, steps=300):
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(1024, 4096), torch.nn.ReLU(),
        torch.nn.Linear(4096, 4096), torch.nn.ReLU(),
        torch.nn.Linear(4096, 10)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    data = torch.randn(min(steps, 300), 1024, 1024, device="cuda")  # --steps N cycles through them
    labels = torch.randint(0, 10, (min(steps, 300), 1024), device="cuda")
    losses = []
    torch.cuda.synchronize()
    start = time.perf_counter()
    for step in range(steps):
        torch.cuda.nvtx.range_push("step")
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(data[step % 300]), labels[step % 300])
        loss.backward()
        opt.step()
        losses.append(loss.detach() if fixed else loss.item())  # .item(): host waits every step
        prepare_batch(step)  # could overlap the GPU's step, but runs after the wait
        if step % 50 == 49:
            with torch.no_grad():
                probs = model(data[0]).softmax(-1).cpu()  # device -> pageable copy
            recent = torch.stack(losses[-50:]).mean().item() if fixed else sum(losses[-50:]) / 50
            print("step %d loss %.4f p0 %.3f" % (step + 1, recent, probs[0, 0]))
            del losses[:-50]  # a long run (--steps N) keeps no more than it reads
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    print("%d steps in %.3f s%s" % (steps, time.perf_counter() - start, " (fixed)" if fixed else ""))


if __name__ == "__main__":
    arguments = sys.argv[1:]
    main(fixed="--fixed" in arguments,
         steps=int(arguments[arguments.index("--steps") + 1]) if "--steps" in arguments else 300)
