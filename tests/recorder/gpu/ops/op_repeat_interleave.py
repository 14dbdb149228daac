import torch

for step in range(8):
    sizes = torch.randint(1, 8, (64,), device="cuda")
    set_id = torch.repeat_interleave(torch.arange(64, device="cuda"), sizes)  # EXPECT: repeat-interleave
print(set_id.shape)
