import torch

done = torch.zeros(256, dtype=torch.bool, device="cuda")
for step in range(8):
    done = torch.rand(256, device="cuda") > 0.8
    idx = torch.where(done)[0]  # EXPECT: where-one-arg
    done[idx] = False
print(done.shape)
