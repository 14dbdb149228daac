import torch

x = torch.randn(1024, 1024, device="cuda")
for step in range(8):
    y = x @ x
    torch.cuda.synchronize()  # EXPECT: cuda-synchronize
print(y.shape)
