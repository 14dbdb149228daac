import torch

x = torch.rand(4096, device="cuda")
for step in range(4):
    y = x.clone()
    while y.max() > 0.5:  # EXPECT: while-tensor
        y = y * 0.9
print(y.shape)
