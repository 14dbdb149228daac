import torch

v = torch.rand(4096, device="cuda")
for step in range(8):
    v = v * 0.99 + 0.01
    assert (v >= 0).all(), "negative"  # EXPECT: assert-tensor
print(v.shape)
