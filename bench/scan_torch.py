"""PyTorch's side of bench/scan.lua: h_t = a_t * h_{t-1} + b_t over T at (B, T, D), float32, one
thread, forward and forward + backward (autograd, loss h.sum() weighted by a fixed d_h), by
  assoc   torch._higher_order_ops.associative_scan (combine_mode='generic', the CPU's; eager)
  log     the log-space scan minGRU-pytorch uses (lucidrains/minGRU-pytorch,
          heinsen_associative_scan_log: cumsum, logcumsumexp, exp) on log a, log b (b > 0)
Prints one line per figure: `name seconds` (the best of the repeats), then `done`.
Usage: scan_torch.py B T D REPEATS"""
import sys
import time

import torch
from torch._higher_order_ops.associative_scan import associative_scan

torch.set_num_threads(1)
B, T, D, REPEATS = (int(x) for x in sys.argv[1:5])


def combine(x, y):
    a1, b1 = x
    a2, b2 = y
    return a1 * a2, a2 * b1 + b2


def assoc(a, b):
    return associative_scan(combine, (a, b), dim=1, combine_mode='generic')[1]


def heinsen_log(log_coeffs, log_values):
    a_star = log_coeffs.cumsum(dim=1)
    log_h0_plus_b_star = (log_values - a_star).logcumsumexp(dim=1)
    return (a_star + log_h0_plus_b_star).exp()


def best(f):
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


torch.manual_seed(0)
a = torch.rand(B, T, D).mul_(0.1).add_(0.9)
b = torch.rand(B, T, D).add_(0.1)
d_h = torch.randn(B, T, D)
print('torch', torch.__version__, flush=True)

for name, scan, inputs in (('assoc', assoc, (a, b)), ('log', heinsen_log, (a.log(), b.log()))):
    with torch.no_grad():
        print(name + '_forward', best(lambda: scan(*inputs)), flush=True)

    def step():
        x, y = (t.detach().requires_grad_() for t in inputs)
        scan(x, y).backward(d_h)

    print(name + '_forward_backward', best(step), flush=True)
print('done', flush=True)
