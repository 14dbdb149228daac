import torch

x = torch.randn(4096, device="cuda")
total = []
for step in range(8):
    kept = torch.masked_select(x, x > step * 0.1)  # EXPECT: masked-select
    total.append(kept.sum())
print(torch.stack(total).shape)
