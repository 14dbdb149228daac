import torch

for step in range(8):
    x = torch.randn(2048, 2048, device="cuda")
    y = (x @ x).sum()
    del x
    torch.cuda.empty_cache()  # EXPECT: empty-cache
print(y.shape)
