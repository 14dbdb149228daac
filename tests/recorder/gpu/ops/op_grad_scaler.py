import torch

model = torch.nn.Linear(512, 512).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
scaler = torch.amp.GradScaler("cuda")
x = torch.randn(64, 512, device="cuda")
for step in range(8):
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(x).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(opt)  # EXPECT: grad-scaler
    scaler.update()
    opt.zero_grad()
print(step)
