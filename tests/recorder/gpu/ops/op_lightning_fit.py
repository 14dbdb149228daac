import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

try:
    import lightning as L
except ImportError:  # the older package name
    import pytorch_lightning as L


class Classifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(),
                                       torch.nn.Linear(256, 10))

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self.net(x)
        loss = F.cross_entropy(logits, y)
        acc = (logits.argmax(dim=1) == y).float().mean()
        self.log("train_loss", loss, prog_bar=True)
        self.log("train_acc", acc)
        return loss

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


data = TensorDataset(torch.randn(2048, 64), torch.randint(0, 10, (2048,)))
loader = DataLoader(data, batch_size=64, shuffle=True)
trainer = L.Trainer(max_epochs=2, accelerator="gpu", devices=1, logger=False,
                    enable_checkpointing=False, enable_model_summary=False, log_every_n_steps=1)
trainer.fit(Classifier(), loader)  # EXPECT: lightning-log
