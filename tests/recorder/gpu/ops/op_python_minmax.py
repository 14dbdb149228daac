import torch

scores = [torch.rand((), device="cuda") for _ in range(4)]
best = None
for step in range(8):
    scores = [s * 1.01 for s in scores]
    best = max(scores)  # EXPECT: python-minmax
print(best.shape)
