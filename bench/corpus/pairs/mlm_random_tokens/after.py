"""BERT-style masked-language-model pre-training of a small Transformer encoder, with the
80/10/10 token masking done on the GPU.

Of the 15 % of positions chosen for prediction, 80 % become [MASK], 10 % a random token and
10 % stay as they are (as in the usual data collator).
Pattern: the random-token replacement `ids[randomize] = random_words[randomize]`: indexing
with a boolean CUDA mask on both sides has to count the selected positions first, which
waits for the GPU twice.
Fix: `ids = torch.where(randomize, random_words, ids)`: same result, static shapes, no wait.
(The other two masked assignments use a Python scalar, which PyTorch runs as masked_fill
without waiting.)
"""
import argparse
import json
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

WARMUP = 15
VOCAB, MASK_ID, PAD_ID = 8192, 3, 0
SEQ, BATCH, DIM = 128, 32, 256


class MaskedLM(nn.Module):
    def __init__(self, layers=4):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, DIM)
        self.pos = nn.Embedding(SEQ, DIM)
        block = nn.TransformerEncoderLayer(DIM, 4, 4 * DIM, dropout=0.1, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(block, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(DIM)
        self.lm_head = nn.Linear(DIM, VOCAB)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1], device=ids.device)
        return self.lm_head(self.norm(self.encoder(self.tok(ids) + self.pos(positions))))


def mask_tokens(ids, mlm_probability=0.15):
    labels = ids.clone()
    masked = torch.rand(ids.shape, device=ids.device) < mlm_probability
    labels[~masked] = -100
    replace = masked & (torch.rand(ids.shape, device=ids.device) < 0.8)
    ids[replace] = MASK_ID
    randomize = masked & ~replace & (torch.rand(ids.shape, device=ids.device) < 0.5)
    random_words = torch.randint(4, VOCAB, ids.shape, device=ids.device)
    ids = torch.where(randomize, random_words, ids)
    return ids, labels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=150)
    args = parser.parse_args()

    torch.manual_seed(0)
    corpus = torch.randint(4, VOCAB, (4096, SEQ), device="cuda")
    model = MaskedLM().cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4, betas=(0.9, 0.98), weight_decay=0.01)

    def train_step():
        rows = torch.randint(0, corpus.shape[0], (BATCH,), device="cuda")
        ids, labels = mask_tokens(corpus[rows])
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(ids)
        loss = F.cross_entropy(logits.float().view(-1, VOCAB), labels.view(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    model.train()
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
