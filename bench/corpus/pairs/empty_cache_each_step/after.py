"""Offline inference of a Transformer encoder over batches of varying sequence length
(bucketed by length, as inference jobs usually are), bf16, inference_mode.

Pattern: `torch.cuda.empty_cache()` after every batch, "to keep memory fragmentation down
between batches of different sizes". It hands all cached blocks back to the driver
(cudaFree, which waits for the whole device), so the next batch has to cudaMalloc its
activations again.
Fix: remove the call and let PyTorch's caching allocator reuse the blocks.
"""
import argparse
import json
import sys
import time

import torch
import torch.nn as nn

WARMUP = 10
DIM, HEADS, LAYERS, BATCH = 768, 12, 6, 32
BUCKETS = [64, 128, 192, 256, 384, 512]


def build_encoder():
    layer = nn.TransformerEncoderLayer(DIM, HEADS, 4 * DIM, dropout=0.0, activation="gelu",
                                       batch_first=True, norm_first=True)
    return nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)


def run(encoder, batches, num_batches, pooled):
    with torch.inference_mode(), torch.autocast("cuda", dtype=torch.bfloat16):
        for i in range(num_batches):
            x = batches[i % len(batches)]
            pooled.append(encoder(x).mean(dim=1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()

    torch.manual_seed(0)
    encoder = build_encoder().cuda().eval()
    batches = [torch.randn(BATCH, length, DIM, device="cuda", dtype=torch.bfloat16) for length in BUCKETS]
    pooled = []

    run(encoder, batches, WARMUP, pooled)
    torch.cuda.synchronize()
    start = time.perf_counter()
    run(encoder, batches, args.steps, pooled)
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - start
    print(f"{len(pooled)} batches, peak memory {torch.cuda.max_memory_allocated() / 2**20:.0f} MiB",
          file=sys.stderr)
    print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))


if __name__ == "__main__":
    main()
