import torch

x = torch.randn(4096, device="cuda")
for step in range(8):
    loss = (x * step).abs().mean()
    print("step", step, "loss", loss)  # EXPECT: print-tensor
