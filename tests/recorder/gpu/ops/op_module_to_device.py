import torch

for step in range(6):
    model = torch.nn.Linear(1024, 1024)
    model = model.cuda()  # EXPECT: module-to-device
print(next(model.parameters()).device)
