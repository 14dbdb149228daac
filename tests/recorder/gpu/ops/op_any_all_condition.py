import torch

finished = torch.zeros(64, dtype=torch.bool, device="cuda")
for step in range(8):
    finished |= torch.rand(64, device="cuda") > 0.9
    if finished.all():  # EXPECT: any-all-condition
        break
print(int(finished.sum()))
