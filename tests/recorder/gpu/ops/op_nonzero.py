import torch

state = torch.zeros(256, device="cuda")
for step in range(8):
    done = torch.rand(256, device="cuda") > 0.8
    idx = torch.nonzero(done).squeeze(1)  # EXPECT: nonzero
    state.index_fill_(0, idx, 0.0)
print(state.shape)
