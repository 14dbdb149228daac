import torch

w = torch.randn(4096, device="cuda")
skipped = 0
for step in range(8):
    grad = torch.randn(4096, device="cuda")
    norm = grad.norm()
    if torch.isfinite(norm):  # EXPECT: bool-condition
        w -= 0.01 * grad
    else:
        skipped += 1
print(skipped)
