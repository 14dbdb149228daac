import torch

x = torch.randn(4096, device="cuda")
total = 0.0
for step in range(8):
    y = torch.tanh(x * step)
    total += y.sum().item()  # EXPECT: item
print(total)
