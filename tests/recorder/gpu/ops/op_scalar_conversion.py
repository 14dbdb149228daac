import torch

x = torch.randn(4096, device="cuda")
history = []
for step in range(8):
    loss = (x * step).pow(2).mean()
    history.append(float(loss))  # EXPECT: scalar-conversion
print(len(history))
