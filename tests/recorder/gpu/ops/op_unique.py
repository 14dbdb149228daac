import torch

emb = torch.randn(10000, 64, device="cuda")
for step in range(8):
    ids = torch.randint(0, 10000, (4096,), device="cuda")
    rows = torch.unique(ids)  # EXPECT: unique
    emb[rows] *= 0.99
print(emb.shape)
