import torch

batches = [torch.randn(256, 3, 32, 32) for _ in range(8)]
w = torch.randn(3 * 32 * 32, 10, device="cuda")
for batch in batches:
    images = batch.to("cuda")  # EXPECT: pageable-upload
    out = images.flatten(1) @ w
print(out.shape)
