#!/usr/bin/env python3
"""The README's sample: a small PyTorch training loop with an in-loop .item() (the classic stall),
NVTX ranges per step, and a .cpu() evaluation every 50 steps. Recorded with
  stallscope-record -o resources/sample.stallscope -- python3 bench/recorder/sample_train.py"""
import torch


def main(steps=300):
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(1024, 2048), torch.nn.ReLU(),
        torch.nn.Linear(2048, 2048), torch.nn.ReLU(),
        torch.nn.Linear(2048, 10)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    data = torch.randn(steps, 256, 1024, device="cuda")
    labels = torch.randint(0, 10, (steps, 256), device="cuda")
    losses = []
    for step in range(steps):
        torch.cuda.nvtx.range_push("step")
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(data[step]), labels[step])
        loss.backward()
        opt.step()
        losses.append(loss.item())  # host waits for the GPU every step
        if step % 50 == 49:
            with torch.no_grad():
                probs = model(data[0]).softmax(-1).cpu()  # device -> pageable copy
            print("step %d loss %.4f p0 %.3f" % (step + 1, sum(losses[-50:]) / 50, probs[0, 0]))
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
