"""Vision-Transformer-style classifier on synthetic patch embeddings (12 layers, d=1024,
batch 64 x 256 tokens, bf16 autocast, AdamW), logging loss and accuracy every step.

Pattern: the step's metrics are read with two scalar reads on one line,
`loss_v, acc_v = loss.item(), acc.item()`: two device-to-host copies and two waits.
Fix: stack the metrics and read them in one transfer,
`loss_v, acc_v = torch.stack([loss.detach(), acc]).tolist()`. The first read already
waits for the whole step, the second only costs a tiny copy, and a step takes ~50 ms of GPU
work: the fix should save close to nothing.
"""
import argparse
import json
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

WARMUP = 5
DIM, DEPTH, HEADS, TOKENS, BATCH, CLASSES = 1024, 12, 16, 256, 64, 1000


class ViT(nn.Module):
    def __init__(self):
        super().__init__()
        self.cls = nn.Parameter(torch.zeros(1, 1, DIM))
        self.pos = nn.Parameter(torch.randn(1, TOKENS + 1, DIM) * 0.02)
        layer = nn.TransformerEncoderLayer(DIM, HEADS, 4 * DIM, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, DEPTH, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, CLASSES)

    def forward(self, patches):
        x = torch.cat([self.cls.expand(patches.shape[0], -1, -1), patches], dim=1) + self.pos
        return self.head(self.norm(self.blocks(x))[:, 0])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=25)
    args = parser.parse_args()

    torch.manual_seed(0)
    model = ViT().cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.05)
    patches = torch.randn(BATCH, TOKENS, DIM, device="cuda")
    labels = torch.randint(0, CLASSES, (BATCH,), device="cuda")
    history = []

    def train_step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(patches)
        loss = F.cross_entropy(logits.float(), labels)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        acc = (logits.argmax(1) == labels).float().mean()
        loss_v, acc_v = torch.stack([loss.detach(), acc]).tolist()
        history.append((loss_v, acc_v))

    for _ in range(WARMUP):
        train_step()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(args.steps):
        train_step()
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - start
    print(f"final loss {history[-1][0]:.3f} acc {history[-1][1]:.3f}", file=sys.stderr)
    print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))


if __name__ == "__main__":
    main()
