#!/usr/bin/env python3
# References for spec/highway_cell_spec.lua: nn.RNN over a dense cell whose step reads x, the
# layer's input at its unit (examples/cells/highway_gru.lua), in PyTorch float64: PyTorch's GRU
# step (gates r, z, n) and a carry gate t, h' = t * ((1 - z) * n + z * h) + (1 - t) * x, with
# nn.RNN's parameters and their names (weight_ih_l0[_reverse], ... of 4 H rows), stacked layers
# (the next layer reads this one's hs) and both directions (the reverse one starts each sequence
# at its own last step, as a packed sequence does). A ragged case runs each sequence for its own
# length: hs is zero past it, the final states are its last step's. loss = sum(hs * r) +
# sum(h_n * s_h); the gradients are autograd's of it.
# Run: /work/venv-torch/bin/python spec/data/highway/gen.py
import json, os
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
torch.set_default_dtype(torch.float64)


def step(x, h, t, sfx):
    gx = x @ t['weight_ih' + sfx].T + t['bias_ih' + sfx]
    gh = h @ t['weight_hh' + sfx].T + t['bias_hh' + sfx]
    xr, xz, xn, xt = gx.chunk(4, dim=1)
    hr, hz, hn, ht = gh.chunk(4, dim=1)
    r, z = torch.sigmoid(xr + hr), torch.sigmoid(xz + hz)
    n = torch.tanh(xn + r * hn)
    carry = torch.sigmoid(xt + ht)
    return carry * ((1 - z) * n + z * h) + (1 - carry) * x


def direction(xs, h, t, sfx, lengths, reverse):
    T = xs.shape[0]
    out = [None] * T
    for k in (reversed(range(T)) if reverse else range(T)):
        mask = (torch.tensor(lengths) > k).to(xs.dtype).unsqueeze(1)
        new = step(xs[k], h, t, sfx)
        h = mask * new + (1 - mask) * h
        out[k] = mask * new
    return torch.stack(out), h


def run(t, layers, dirs, lengths):
    xs, finals = t['xs'], []
    for l in range(layers):
        outs = []
        for d in range(dirs):
            sfx = '_l%d%s' % (l, '_reverse' if d else '')
            hs, h = direction(xs, t['h0'][l * dirs + d], t, sfx, lengths, d == 1)
            outs.append(hs)
            finals.append(h)
        xs = torch.cat(outs, dim=2)
    return xs, torch.stack(finals)


def results(t, leaves, layers, dirs, lengths):
    hs, h_n = run(t, layers, dirs, lengths)
    loss = (hs * t['r']).sum() + (h_n * t['s_h']).sum()
    grads = torch.autograd.grad(loss, [t[n] for n in leaves])
    got = {'hs': hs.detach(), 'h_n': h_n.detach()}
    for n, d in zip(leaves, grads):
        got['d_' + n] = d
    return got


def case(name, T, B, H, layers, dirs, lengths, initial, seed):
    g = torch.Generator().manual_seed(seed)
    rnd = lambda *s: torch.randn(*s, generator=g)
    k = 1 / H ** 0.5
    t = {'xs': rnd(T, B, H)}
    params = []
    for l in range(layers):
        for d in range(dirs):
            sfx = '_l%d%s' % (l, '_reverse' if d else '')
            for p, shape in [('weight_ih', (4 * H, H)), ('weight_hh', (4 * H, H)),
                             ('bias_ih', (4 * H,)), ('bias_hh', (4 * H,))]:
                t[p + sfx] = rnd(*shape) * k
                params.append(p + sfx)
    t['h0'] = rnd(layers * dirs, B, H) if initial else torch.zeros(layers * dirs, B, H)
    leaves = ['xs', 'h0'] + params
    for n in leaves:
        t[n] = t[n].clone().requires_grad_(True)
    t['r'] = rnd(T, B, dirs * H)
    t['s_h'] = rnd(layers * dirs, B, H)
    out = {n: v.detach() for n, v in t.items()}
    out.update(results(t, leaves, layers, dirs, lengths))
    # PyTorch's own float32 error on the case (the golden rule: ../shared/golden/README.md)
    t32 = {n: v.float().requires_grad_(n in leaves) for n, v in out.items()}
    got32 = results(t32, leaves, layers, dirs, lengths)
    error32 = {n: float((got32[n].double() - out[n]).norm() / max(out[n].norm(), 1e-300))
               for n in got32}
    folder = os.path.join(HERE, name)
    os.makedirs(folder, exist_ok=True)
    for n, v in out.items():
        np.save(os.path.join(folder, n + '.npy'), v.numpy())
    with open(os.path.join(folder, 'config.json'), 'w') as f:
        json.dump({'T': T, 'B': B, 'H': H, 'num_layers': layers, 'bidirectional': dirs == 2,
                   'lengths': lengths, 'states': ['h'], 'pytorch_float32_error': error32}, f)
        f.write('\n')


if __name__ == '__main__':
    case('uni_zero_full', 5, 3, 6, 1, 1, [5, 5, 5], False, 1)
    case('uni_state_ragged', 6, 3, 5, 1, 1, [6, 2, 4], True, 2)
    case('bi_zero_ragged', 5, 4, 7, 1, 2, [5, 1, 3, 4], False, 3)
    case('bi_state_full', 4, 2, 4, 1, 2, [4, 4], True, 4)
    case('two_layers_state_ragged', 6, 3, 5, 2, 1, [6, 3, 1], True, 5)
    case('two_layers_zero_full', 4, 2, 9, 2, 1, [4, 4], False, 6)
