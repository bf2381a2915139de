"""PyTorch's side of bench/linear_cells.lua: a minGRU layer's training step (forward, then
backward of sum(out * d_out) into the input and the weight) at (B, T, H), float32, one thread,
as lucidrains/minGRU-pytorch computes it (its parallel log-space path: to_hidden_and_gate a
Linear without bias, log_g, heinsen_associative_scan_log), eager and under torch.compile.
Prints one line per figure: `name seconds` (the best of the repeats), then `done`.
Usage: linear_cells_torch.py B T H REPEATS [MODES] (MODES: eager,compile, the default)"""
import sys
import time

import torch
import torch.nn.functional as F

torch.set_num_threads(1)
B, T, H, REPEATS = (int(x) for x in sys.argv[1:5])
MODES = (sys.argv[5] if len(sys.argv) > 5 else 'eager,compile').split(',')


def heinsen_log(log_coeffs, log_values):
    a_star = log_coeffs.cumsum(dim=1)
    log_h0_plus_b_star = (log_values - a_star).logcumsumexp(dim=1)
    return (a_star + log_h0_plus_b_star).exp()


def log_g(x):
    return torch.where(x >= 0, (F.relu(x) + 0.5).log(), -F.softplus(-x))


class MinGRU(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.to_hidden_and_gate = torch.nn.Linear(dim, 2 * dim, bias=False)

    def forward(self, x):
        hidden, gate = self.to_hidden_and_gate(x).chunk(2, dim=-1)
        return heinsen_log(-F.softplus(gate), -F.softplus(-gate) + log_g(hidden))


def best(f):
    f()  # a first call (compiles under torch.compile)
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


torch.manual_seed(0)
x, d_out = torch.randn(B, T, H), torch.randn(B, T, H)
print('torch', torch.__version__, flush=True)
for name in MODES:
    module = MinGRU(H) if name == 'eager' else torch.compile(MinGRU(H))

    def step():
        xi = x.detach().requires_grad_()
        module.zero_grad()
        module(xi).backward(d_out)

    print('mingru_' + name, best(step), flush=True)
print('done', flush=True)
