# PyTorch's side of make bench-torch (bench/torch.lua starts it with the python named by
# FUSED_TORCH_PYTHON and talks to it over stdin and stdout, so that the two alternate in one
# run). First line out: PyTorch's version and CPU capability. Then, per line in:
#   threads N PIN     N intra-op threads; PIN 1 pins this process to CPU 0, 0 unpins it
#   step CELL T B I H ITERS
#                     ITERS training steps of nn.CELL (forward from a zero state, backward of
#                     hs.sum() to the parameters and the input, as fused's step), answered
#                     with the ms of one step
import os
import sys
import time

import torch

torch.manual_seed(0)
models = {}
print(torch.__version__, torch.backends.cpu.get_cpu_capability(), flush=True)
for line in sys.stdin:
    words = line.split()
    if words[0] == 'threads':
        os.sched_setaffinity(0, {0} if words[2] == '1' else range(os.cpu_count()))
        torch.set_num_threads(int(words[1]))
        print('ok', torch.get_num_threads(), flush=True)
        continue
    cell, T, B, I, H, iters = words[1], *(int(w) for w in words[2:])
    key = (cell, T, B, I, H)
    if key not in models:
        models[key] = (getattr(torch.nn, cell)(I, H), torch.randn(T, B, I, requires_grad=True))
    m, xs = models[key]
    t0 = time.perf_counter()
    for _ in range(iters):
        hs, _ = m(xs)
        hs.sum().backward()
    print('%.4f' % ((time.perf_counter() - t0) * 1e3 / iters), flush=True)
