import torch

model = torch.nn.Linear(512, 512).cuda()
x = torch.randn(64, 512, device="cuda")
for step in range(8):
    model(x).pow(2).mean().backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)  # EXPECT: clip-grad-nonfinite
    model.zero_grad()
print(step)
