#!/usr/bin/env python3
# References for spec/scan_reference_spec.lua: fused.scan(a, b, h0, {lengths, resets, reverse})
# as a plain PyTorch loop in float64, h_t = a_t * h_prev + b_t over a (T, B, ...) layout: row b
# runs steps 1..lengths[b] (from its last down to its first when reverse), h_prev is h0 (zeros
# without one) at the first step it takes and at a step whose reset is set; h is 0 past a row's
# length. loss = sum(h * r); d_a, d_b, d_h0 are autograd's of it. config.json's
# pytorch_float32_error: the same loop's float32 error per tensor, from the inputs rounded to
# float32 (the golden rule, ../shared/golden/README.md: max(1e-5, 4 e)).
# Run: /work/venv-torch/bin/python spec/data/scan/gen.py
import json, os
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def scan(a, b, h0, lengths, resets, reverse):
    T, B = a.shape[0], a.shape[1]
    rows = []
    for r in range(B):
        n = lengths[r]
        init = h0[r] if h0 is not None else torch.zeros_like(a[0, r])
        h, out = None, [None] * n
        for k in range(n):
            t = n - 1 - k if reverse else k
            if k == 0 or resets[t, r]:
                h = init
            h = a[t, r] * h + b[t, r]
            out[t] = h
        rows.append(torch.cat((torch.stack(out), torch.zeros((T - n,) + tuple(a.shape[2:]),
                                                             dtype=a.dtype))))
    return torch.stack(rows, dim=1)


def case(name, shape, lengths=None, resets_at=(), h0=True, reverse=False, decay=(0.0, 1.0),
         seed=0):
    g = torch.Generator().manual_seed(seed)
    T, B = shape[0], shape[1]
    lo, hi = decay
    t = {'a': lo + (hi - lo) * torch.rand(*shape, generator=g, dtype=torch.float64),
         'b': torch.randn(*shape, generator=g, dtype=torch.float64)}
    if h0:
        t['h0'] = torch.randn(*shape[1:], generator=g, dtype=torch.float64)
    t['r'] = torch.randn(*shape, generator=g, dtype=torch.float64)
    resets = torch.zeros(T, B, dtype=torch.bool)
    for (step, row) in resets_at:
        resets[step, row] = True
    lens = lengths or [T] * B
    wrt = [n for n in ('a', 'b', 'h0') if n in t]

    def results(v):
        leaves = {n: v[n].clone().requires_grad_() for n in wrt}
        h = scan(leaves['a'], leaves['b'], leaves.get('h0'), lens, resets, reverse)
        grads = torch.autograd.grad((h * v['r']).sum(), [leaves[n] for n in wrt])
        out = {'h': h.detach()}
        out.update({'d_' + n: d for n, d in zip(wrt, grads)})
        return out

    out = results(t)
    out32 = results({n: v.float() for n, v in t.items()})
    error32 = {n: float((out32[n].double() - v).norm() / max(float(v.norm()), 1e-300))
               for n, v in out.items()}
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    out.update(t)
    out['resets'] = resets
    for n, v in out.items():
        np.save(os.path.join(d, n + '.npy'), v.numpy())
    with open(os.path.join(d, 'config.json'), 'w') as f:
        config = {'resets': len(resets_at) > 0, 'h0': h0, 'reverse': reverse,
                  'pytorch_float32_error': error32}
        if lengths:
            config['lengths'] = lengths
        json.dump(config, f)


case('plain', (50, 4, 70), seed=1)
case('ragged_resets', (9, 3, 37), lengths=[9, 4, 6], resets_at=[(3, 0), (1, 1), (5, 2)], seed=2)
case('reverse_ragged_resets', (9, 3, 37), lengths=[9, 4, 6], resets_at=[(0, 0), (3, 0), (2, 1),
                                                                        (5, 2)],
     reverse=True, seed=3)
case('t1_h0_4d', (1, 2, 3, 5), seed=4)
case('no_h0_reverse_4d', (6, 2, 3, 17), reverse=True, h0=False, seed=5)
# rows of more than one 256-channel piece, a slow decay over many steps
case('wide_long_resets', (64, 2, 260), lengths=[64, 45], resets_at=[(20, 0), (30, 1)],
     decay=(0.99, 1.0), seed=6)
case('long_decay_near_one', (2000, 1, 8), decay=(0.999, 1.0), seed=7)
