import torch

torch.backends.cudnn.benchmark = True
conv = torch.nn.Conv2d(16, 32, 3, padding=1).cuda()
for step in range(6):
    x = torch.randn(8, 16, 32 + 8 * step, 32, device="cuda")
    y = conv(x)  # EXPECT: cudnn-autotune
print(y.shape)
