import torch

logits = torch.randn(256, 10, device="cuda")
preds = []
for step in range(8):
    preds.extend((logits * step).argmax(1).tolist())  # EXPECT: tolist
print(len(preds))
