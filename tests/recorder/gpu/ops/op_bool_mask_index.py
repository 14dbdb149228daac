import torch
import torch.nn.functional as F

logits = torch.randn(32, 128, 17, device="cuda", requires_grad=True)
tags = torch.randint(0, 17, (32, 128), device="cuda")
for step in range(8):
    mask = torch.rand(32, 128, device="cuda") > 0.2
    loss = F.cross_entropy(logits[mask], tags[mask])  # EXPECT: bool-mask-index
    loss.backward()
print(logits.grad.shape)
