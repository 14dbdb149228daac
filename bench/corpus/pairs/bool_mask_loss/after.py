"""Part-of-speech style sequence tagger: embeddings, a stack of residual 1-D convolutions,
a per-token classifier; padded batches of variable-length sentences, bf16 autocast, AdamW.

Pattern: the loss keeps only the real (non-padding) tokens with boolean-mask indexing,
`F.cross_entropy(logits[mask], tags[mask])`. Indexing with a boolean CUDA mask has to count
the selected elements first, so each of the two index operations waits for the GPU.
Fix: keep the shapes static: set the tags of padding positions to -100 (`masked_fill`) and let
cross_entropy's ignore_index=-100 drop them. Same loss, no wait.
"""
import argparse
import json
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

WARMUP = 20
VOCAB, TAGS, DIM = 20000, 17, 384
BATCH, MAX_LEN = 32, 128


class ConvTagger(nn.Module):
    def __init__(self, layers=6):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM, padding_idx=0)
        self.convs = nn.ModuleList(nn.Conv1d(DIM, DIM, 5, padding=2) for _ in range(layers))
        self.norms = nn.ModuleList(nn.LayerNorm(DIM) for _ in range(layers))
        self.classify = nn.Linear(DIM, TAGS)

    def forward(self, tokens):
        h = self.embed(tokens)
        for conv, norm in zip(self.convs, self.norms):
            h = norm(h + F.gelu(conv(h.transpose(1, 2)).transpose(1, 2)))
        return self.classify(h)


def random_batch():
    lengths = torch.randint(8, MAX_LEN + 1, (BATCH,), device="cuda")
    mask = torch.arange(MAX_LEN, device="cuda")[None, :] < lengths[:, None]
    tokens = torch.randint(1, VOCAB, (BATCH, MAX_LEN), device="cuda") * mask
    tags = (tokens * 7 + tokens.roll(1, dims=1)) % TAGS
    return tokens, tags, mask


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=150)
    args = parser.parse_args()

    torch.manual_seed(0)
    model = ConvTagger().cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)

    def train_step():
        tokens, tags, mask = random_batch()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(tokens)
        loss = F.cross_entropy(logits.flatten(0, 1).float(), tags.masked_fill(~mask, -100).flatten())
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    for _ in range(WARMUP):
        train_step()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(args.steps):
        train_step()
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - start
    print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))


if __name__ == "__main__":
    main()
