import torch

for step in range(8):
    x = torch.sort(torch.randint(0, 100, (4096,), device="cuda")).values
    runs = torch.unique_consecutive(x)  # EXPECT: unique-consecutive
print(runs.shape)
