#!/usr/bin/env python3
# nn.Scan trained inside nn.Sequential (spec/scan_train_spec.lua), float64, in PyTorch:
# Sequential(Linear(I, 2D), gated scan, Linear(D, out)), where the gated scan takes the first
# Linear's output (T, B, 2D), a = sigmoid(its first D), b = its last D, and runs
# h_t = a_t h_{t-1} + b_t from zeros as a plain loop, row b over steps 1..lengths[b] only (0
# after), a reset returning the state to zeros (h0 = none); reverse: from the row's last step
# down. Trained by SGD with momentum on the mean squared error (torch.optim.SGD, nn.MSELoss):
# the parameters before (init_*) and after (named as fused's Sequential names them, from 0) and
# every step's loss.
# Run: /work/venv-torch/bin/python spec/data/scan_train/gen.py
import json, os
import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
torch.set_default_dtype(torch.float64)


def scan(a, b, lengths, resets, reverse):
    T, B = a.shape[0], a.shape[1]
    rows = []
    for r in range(B):
        n = lengths[r]
        h, out = torch.zeros(a.shape[2]), [None] * n
        for t in (range(n - 1, -1, -1) if reverse else range(n)):
            if resets[t, r]:
                h = torch.zeros(a.shape[2])
            h = a[t, r] * h + b[t, r]
            out[t] = h
        rows.append(torch.cat((torch.stack(out), torch.zeros(T - n, a.shape[2]))))
    return torch.stack(rows, dim=1)


def train(name, T, B, I, D, out, lengths, resets_at, reverse, steps, lr, momentum, seed):
    g = torch.Generator().manual_seed(seed)
    rnd = lambda *s: torch.randn(*s, generator=g)
    params = {'0.weight': rnd(2 * D, I) / I ** 0.5, '0.bias': rnd(2 * D) * 0.1,
              '2.weight': rnd(out, D) / D ** 0.5, '2.bias': rnd(out) * 0.1}
    params = {n: v.requires_grad_() for n, v in params.items()}
    init = {'init_' + n: v.detach().clone() for n, v in params.items()}
    xs, target = rnd(T, B, I), rnd(T, B, out)
    resets = torch.zeros(T, B, dtype=torch.bool)
    for (t, r) in resets_at:
        resets[t, r] = True
    opt = torch.optim.SGD(list(params.values()), lr=lr, momentum=momentum)
    losses = []
    for _ in range(steps):
        ab = xs @ params['0.weight'].T + params['0.bias']
        h = scan(ab[..., :D].sigmoid(), ab[..., D:], lengths, resets, reverse)
        loss = F.mse_loss(h @ params['2.weight'].T + params['2.bias'], target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    save = dict(init, xs=xs, target=target, resets=resets)
    save.update({n: v.detach() for n, v in params.items()})
    for n, v in save.items():
        np.save(os.path.join(d, n + '.npy'), v.numpy())
    with open(os.path.join(d, 'config.json'), 'w') as f:
        json.dump({'I': I, 'D': D, 'out': out, 'lengths': lengths, 'reverse': reverse, 'lr': lr,
                   'momentum': momentum, 'losses': losses}, f)


train('forward', 7, 3, 4, 5, 2, [7, 4, 6], [(0, 0), (3, 0), (2, 2)], False, 4, 0.5, 0.9, 401)
train('reverse', 6, 2, 3, 4, 3, [6, 3], [(2, 0), (1, 1)], True, 4, 0.5, 0.9, 402)
