import tempfile

import torch
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments


class RandomReviews(torch.utils.data.Dataset):
    def __init__(self, count, length, vocab):
        generator = torch.Generator().manual_seed(0)
        self.ids = torch.randint(0, vocab, (count, length), generator=generator)
        self.labels = torch.randint(0, 2, (count,), generator=generator)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "attention_mask": torch.ones_like(self.ids[i]),
                "labels": self.labels[i]}


config = BertConfig(vocab_size=2000, hidden_size=128, num_hidden_layers=2, num_attention_heads=2,
                    intermediate_size=256, num_labels=2)
model = BertForSequenceClassification(config)
with tempfile.TemporaryDirectory() as out:
    args = TrainingArguments(output_dir=out, max_steps=40, per_device_train_batch_size=16,
                             logging_steps=5, save_strategy="no", report_to=[], disable_tqdm=True)
    trainer = Trainer(model=model, args=args, train_dataset=RandomReviews(640, 64, 2000))
    trainer.train()  # EXPECT: trainer-batch-transfer
