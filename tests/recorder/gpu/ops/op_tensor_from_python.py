import torch

w = torch.randn(64, device="cuda")
for step in range(8):
    rewards = [float(i * step) for i in range(64)]
    r = torch.tensor(rewards, device="cuda")  # EXPECT: tensor-from-python
    w = w + r
print(w.shape)
