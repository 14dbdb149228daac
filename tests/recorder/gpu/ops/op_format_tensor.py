import torch

x = torch.randn(4096, device="cuda")
lines = []
for step in range(8):
    loss = (x * step).abs().mean()
    lines.append(f"step {step} loss {loss:.4f}")  # EXPECT: format-tensor
print(lines[-1])
