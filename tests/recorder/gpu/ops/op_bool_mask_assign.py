import torch

ids = torch.randint(0, 1000, (64, 128), device="cuda")
noise = torch.randint(0, 1000, (64, 128), device="cuda")
for step in range(8):
    pick = torch.rand(64, 128, device="cuda") < 0.15
    ids[pick] = noise[pick]  # EXPECT: bool-mask-assign
print(ids.shape)
