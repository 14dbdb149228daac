"""Embedding extraction: run a (randomly initialised) sentence encoder over a corpus of
token batches and gather the pooled embeddings into one NumPy array for a vector index.

The model is a 4-layer Transformer encoder (d=512) in bf16 under inference_mode; each
batch yields a [512, 512] float32 embedding matrix (1 MiB).
Pattern: `chunks.append(emb.cpu().numpy())` every batch: a blocking copy into pageable
memory, so the host waits for the GPU and then for the copy before it queues the next batch.
Fix: allocate one pinned host tensor for all the embeddings up front, copy each batch into
its slice with `copy_(emb, non_blocking=True)`, and synchronize once after the loop.
"""
import argparse
import json
import sys
import time

import numpy as np
import torch
import torch.nn as nn

WARMUP = 10
VOCAB, SEQ, DIM, BATCH = 30000, 64, 512, 512


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, DIM)
        layer = nn.TransformerEncoderLayer(DIM, 8, 4 * DIM, batch_first=True, norm_first=True)
        self.layers = nn.TransformerEncoder(layer, 4, enable_nested_tensor=False)

    def forward(self, ids):
        h = self.layers(self.tok(ids))
        return nn.functional.normalize(h.mean(dim=1).float(), dim=-1)


def embed_corpus(model, batches, num_batches, out):
    with torch.inference_mode(), torch.autocast("cuda", dtype=torch.bfloat16):
        for i in range(num_batches):
            emb = model(batches[i % len(batches)])
            out.append(emb.cpu().numpy())  # FIX:


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=250, help="batches to embed")
    args = parser.parse_args()

    torch.manual_seed(0)
    model = Encoder().cuda().eval()
    batches = [torch.randint(0, VOCAB, (BATCH, SEQ), device="cuda") for _ in range(32)]

    embed_corpus(model, batches, WARMUP, [])
    chunks = []
    torch.cuda.synchronize()
    start = time.perf_counter()
    embed_corpus(model, batches, args.steps, chunks)
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - start
    table = np.concatenate(chunks)

    print(f"embeddings {table.shape}, mean norm {np.linalg.norm(table[:1000], axis=1).mean():.3f}", file=sys.stderr)
    print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))


if __name__ == "__main__":
    main()
