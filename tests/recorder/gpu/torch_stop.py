"""Recorded by tst_recorder_gpu::stopEndsTheRecording: records 64 element-wise multiplications,
ends the recording through the recorder's C entry point (as bench/whatif/pair_harness.py does),
then launches 200,000 sines unrecorded. Prints one JSON line: whether the recorder said it was
recording before and after the stop, and how much the process's resident memory grew over the
sines (a recorder that left CUPTI tracing on would keep every one of their records)."""
import ctypes
import json
import os

import torch

SINES = 200_000


def resident_kib():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise SystemExit("no VmRSS in /proc/self/status")


x = torch.ones(4096, device="cuda")
for _ in range(64):
    x = x * 1.0001
torch.cuda.synchronize()

recorder = ctypes.CDLL(os.environ["CUDA_INJECTION64_PATH"], mode=os.RTLD_NOLOAD)
recording_before = recorder.stallscope_recording()
recorder.stallscope_stop()
recording_after = recorder.stallscope_recording()

for _ in range(1000):  # the sine's first launch (module load) and the allocator's blocks
    y = torch.sin(x)
torch.cuda.synchronize()
start = resident_kib()
for _ in range(SINES):
    y = torch.sin(x)
torch.cuda.synchronize()
print(json.dumps({"recording_before": recording_before, "recording_after": recording_after,
                  "rss_growth_kib": resident_kib() - start}), flush=True)
