import torch

x = torch.randn(1024, 1024, device="cuda")
for step in range(8):
    y = x @ x
    done = torch.cuda.Event()
    done.record()
    done.synchronize()  # EXPECT: stream-event-synchronize
print(y.shape)
