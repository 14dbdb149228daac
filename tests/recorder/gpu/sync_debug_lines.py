"""Runs a script under PyTorch's own sync detector, torch.cuda.set_sync_debug_mode("warn"), and
prints "FLAGGED <line>" for each sync it warns of, at the script's own line (the warning's frame
may lie inside torch: print() of a tensor warns in torch/_tensor_str.py).
Usage: python3 sync_debug_lines.py SCRIPT"""
import os
import runpy
import sys
import warnings

import torch

script = os.path.realpath(sys.argv[1])


def show(message, category, filename, lineno, file=None, line=None):
    if "synchronizing" not in str(message):
        return
    frame = sys._getframe(1)
    while frame is not None and os.path.realpath(frame.f_code.co_filename) != script:
        frame = frame.f_back
    print(f"FLAGGED {frame.f_lineno if frame else 0}", flush=True)


warnings.showwarning = show
warnings.simplefilter("always")
torch.cuda.set_sync_debug_mode("warn")
sys.argv = [script]
runpy.run_path(script, run_name="__main__")
