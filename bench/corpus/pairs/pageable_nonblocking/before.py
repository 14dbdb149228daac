"""Batch scoring service: images arrive as float32 CPU tensors (16 x 3 x 224 x 224, ~9.6 MB),
a convolutional scoring model runs on each batch in bf16 under inference_mode, and the
scores stay on the GPU until the report at the end.

Pattern: `batch.to(device, non_blocking=True)` from ordinary (pageable) host memory. The
author expected an asynchronous copy, but CUDA can only copy asynchronously from pinned
memory: from pageable memory the copy is staged by the driver and the host is held until
the GPU has reached it, i.e. until the previous batch is done.
Fix: pin the batch first, `batch.pin_memory().to(device, non_blocking=True)`: the host copies
it into page-locked memory and the transfer is really queued.
"""
import argparse
import json
import sys
import time

import torch
import torch.nn as nn

WARMUP = 10


def conv_block(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
                         nn.BatchNorm2d(cout), nn.SiLU(inplace=True))


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            conv_block(3, 32, 2), conv_block(32, 64, 1), conv_block(64, 64, 1),
            conv_block(64, 128, 2), conv_block(128, 128, 1),
            conv_block(128, 256, 2), conv_block(256, 256, 1),
            conv_block(256, 512, 2), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.score = nn.Linear(512, 1)

    def forward(self, x):
        return self.score(self.features(x)).squeeze(1).sigmoid()


def incoming_requests(n, generator):
    """Stand-in for decoded request payloads: ordinary CPU tensors."""
    return [torch.rand(16, 3, 224, 224, generator=generator) for _ in range(n)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True
    device = torch.device("cuda")
    requests = incoming_requests(24, torch.Generator().manual_seed(0))
    model = Scorer().to(device).eval()
    scores = []

    def serve(num_batches):
        with torch.inference_mode(), torch.autocast("cuda", dtype=torch.bfloat16):
            for i in range(num_batches):
                batch = requests[i % len(requests)]
                x = batch.to(device, non_blocking=True)  # FIX:
                scores.append(model(x))

    serve(WARMUP)
    torch.cuda.synchronize()
    start = time.perf_counter()
    serve(args.steps)
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - start
    all_scores = torch.cat(scores).float().cpu()
    print(f"{all_scores.numel()} images scored, mean {all_scores.mean():.4f}", file=sys.stderr)
    print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))


if __name__ == "__main__":
    main()
