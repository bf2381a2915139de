# PyTorch's rows for make bench-bf16 (bench/bf16.lua runs it with the python named by
# FUSED_TORCH_PYTHON, else python3, where that imports torch): a training step of nn.LSTM and
# nn.GRU over T steps (forward from a zero state, backward of hs.sum() to the parameters and the
# input, as fused's step computes d_xs), float32 against
# torch.autocast('cpu', torch.bfloat16), alternately, min ms over the rounds, one thread.
# Arguments: T B I H rounds. Prints one line per cell: cell f32_ms bf16_ms rounded, where rounded
# says whether autocast changed the layer's output at all (whether it multiplied in bfloat16).
import sys
import time

import torch

T, B, I, H, rounds = (int(a) for a in sys.argv[1:6])
torch.set_num_threads(1)
torch.manual_seed(0)


def step(m, xs, bf16):
    with torch.autocast('cpu', dtype=torch.bfloat16, enabled=bf16):
        hs, _ = m(xs)
    hs.float().sum().backward()
    return hs.detach().float()


for name in ('LSTM', 'GRU'):
    m = getattr(torch.nn, name)(I, H)
    xs = torch.randn(T, B, I, requires_grad=True)
    iters = 10 if B * H < 10000 else 1
    rounded = not torch.equal(step(m, xs, True), step(m, xs, False))
    best = [float('inf'), float('inf')]
    for _ in range(rounds):
        for k, bf16 in enumerate((False, True)):
            t0 = time.perf_counter()
            for _ in range(iters):
                step(m, xs, bf16)
            best[k] = min(best[k], (time.perf_counter() - t0) * 1e3 / iters)
    print(name, '%.3f' % best[0], '%.3f' % best[1], 'yes' if rounded else 'no')
