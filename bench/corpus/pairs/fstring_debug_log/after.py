"""Text classifier: a pure-Python tokenizer on the host, a small Transformer encoder on the GPU.

Each step makes a batch of 64 synthetic sentences, tokenizes them with a dict lookup,
pads them and copies the ids (pinned, non-blocking) to the GPU; the model is trained with
bf16 autocast and AdamW.
Pattern: a debug log line built with an f-string, `log.debug(f"step {step} loss {loss:.4f}")`.
The logger is at INFO, so nothing is printed, but the f-string is evaluated anyway, and
formatting a CUDA tensor calls .item(): a hidden wait for the GPU every step.
Fix: let logging format lazily, `log.debug("step %d loss %.4f", step, loss)`: the message
(and the read of the loss) is only made when DEBUG is enabled.
"""
import argparse
import json
import logging
import random
import time

import torch
from torch import nn

log = logging.getLogger("textclf")
WARMUP = 10
BATCH, MAX_LEN, DIM = 64, 128, 256


class TextClassifier(nn.Module):
    def __init__(self, vocab_size, num_classes=2):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, DIM, padding_idx=0)
        self.pos = nn.Parameter(torch.randn(MAX_LEN, DIM) * 0.02)
        layer = nn.TransformerEncoderLayer(DIM, nhead=4, dim_feedforward=4 * DIM, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=4, enable_nested_tensor=False)
        self.head = nn.Linear(DIM, num_classes)

    def forward(self, ids):
        pad = ids == 0
        h = self.encoder(self.embed(ids) + self.pos, src_key_padding_mask=pad)
        keep = (~pad).unsqueeze(-1).to(h.dtype)
        return self.head((h * keep).sum(1) / keep.sum(1).clamp(min=1))


class Tokenizer:
    def __init__(self, words):
        self.vocab = {w: i + 2 for i, w in enumerate(words)}  # 0 = padding, 1 = unknown

    def encode_batch(self, sentences):
        ids = torch.zeros(len(sentences), MAX_LEN, dtype=torch.long)
        for row, sentence in enumerate(sentences):
            tokens = [self.vocab.get(w, 1) for w in sentence.lower().split()][:MAX_LEN]
            ids[row, :len(tokens)] = torch.tensor(tokens)
        return ids


def make_sentences(rng, words, n):
    sentences, labels = [], []
    for _ in range(n):
        length = rng.randint(16, MAX_LEN)
        sentence = rng.choices(words, k=length)
        labels.append(int(sum(len(w) for w in sentence) % 2))
        sentences.append(" ".join(sentence).capitalize() + ".")
    return sentences, labels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(name)s %(levelname)s %(message)s")

    torch.manual_seed(0)
    rng = random.Random(0)
    words = ["w%d%s" % (i, "xyz"[i % 3]) for i in range(8000)]
    tokenizer = Tokenizer(words[:6000])
    model = TextClassifier(len(tokenizer.vocab) + 2).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    loss_fn = nn.CrossEntropyLoss()

    def train_step(step):
        sentences, labels = make_sentences(rng, words, BATCH)
        ids = tokenizer.encode_batch(sentences).pin_memory().cuda(non_blocking=True)
        target = torch.tensor(labels).pin_memory().cuda(non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = loss_fn(model(ids), target)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        log.debug("step %d loss %.4f", step, loss)

    model.train()
    for step in range(WARMUP):
        train_step(step)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for step in range(args.steps):
        train_step(step)
    torch.cuda.synchronize()
    loop_s = time.perf_counter() - start
    log.info("trained %d steps in %.2f s", args.steps, loop_s)
    print("CORPUS " + json.dumps({"steps": args.steps, "loop_s": loop_s, "warmup": WARMUP}))


if __name__ == "__main__":
    main()
