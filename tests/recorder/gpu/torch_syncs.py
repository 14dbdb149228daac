"""GPU test script (issue 4): a PyTorch loop with an in-loop .item(), an in-loop
torch.cuda.synchronize() and a per-step .cpu(). check_python_syncs.py finds the MARK lines and
asserts that the syncs' innermost frame in this file is exactly that line."""
import torch

STEPS = 20


def train_step(model, x, opt):
    loss = model(x).square().mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss


def main():
    torch.manual_seed(0)
    model = torch.nn.Linear(256, 256).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(64, 256, device="cuda")
    value, host = 0.0, None
    for _ in range(STEPS):
        loss = train_step(model, x, opt)
        value = loss.item()  # MARK:item
        torch.cuda.synchronize()  # MARK:synchronize
        host = model.weight[:4].detach().cpu()  # MARK:cpu
    print("torch_syncs done", value, float(host[0, 0]))


if __name__ == "__main__":
    main()
