#!/usr/bin/env python3
# References for user-defined linear cells (spec/linear_user_spec.lua), float64, in PyTorch,
# written from the cells' equations below (the spec defines the same cells with
# fused.cell.define{linear = true}), not from fused's code:
#   coupled3 (gates 3; states a, b, c; parameters w, v; reads x and reset; output a and c):
#     f = sigmoid(gx1), z = tanh(gx2), q = sigmoid(gx3)
#     a' = f a + (1 - f) w b + z x
#     b' = -q b + c / 2 + reset v + gx3
#     c' = (1 - reset) exp(-softplus(v)) c + gx3 a / 2 - b / (2 + exp(gx1)) + reset x
#   pair_out (gates 2; states h, m; parameter decay; output y, an expression of the new states):
#     d = exp(-exp(decay))
#     h' = d h + (1 - d) gx1 - m / 4
#     m' = where(gx2 >= 0, m, h / 2) + reset gx1
#     y = tanh(h') sigmoid(gx2) + m' decay
# Three coupled states, per-unit parameters, x and reset in the coefficients, a reset that does
# more than restart (reset v, reset x), F.where on a state-free condition, a computed output.
# A reset returns the states to their initial values and the step there reads reset = 1: each
# sequence is cut at its resets and each segment runs alone from the initial states through
# every layer and direction; the forward's first step of a segment reads its own flag, the
# reverse direction's (the segment's last step) reads 1 where another segment follows, 0 at the
# sequence's end (docs/extending.md). hs is zero past a sequence's length.
# bf16_*: compute = 'bfloat16' (a float32 module): the input GEMM's operands rounded to
# bfloat16, the bias added after, and its backward's too (d_W = r(d_gx)ᵀ r(x), d_x = r(d_gx)
# r(W), r the rounding; d_bias the plain sum), as docs/extending.md says; xs and the weights are
# float32 values, so that rounding them to bfloat16 from float32 or float64 is the same.
# loss = sum(hs * r) + sum over the states of sum(state_n * s_<state>); gradients by autograd.
# config.json's pytorch_float32_error: PyTorch's own float32 error per tensor, the same code run
# from the inputs rounded to float32 (the golden rule: max(1e-5, 4 e)).
# Run: /work/venv-torch/bin/python spec/data/linear_user/gen.py
import json, os
import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
torch.set_default_dtype(torch.float64)


def rb(t):  # rounded to bfloat16 (to nearest even), back in t's dtype
    return t.to(torch.bfloat16).to(t.dtype)


class BF16Linear(torch.autograd.Function):  # x Wᵀ on bfloat16 operands, both ways
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return rb(x) @ rb(w).T

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return rb(g) @ rb(w), rb(g).T @ rb(x)


def step(cell, p, proj, x, s, reset):
    r = 1.0 if reset else 0.0
    if cell == 'coupled3':
        g1, g2, g3 = proj.chunk(3, dim=-1)
        f, z, q = g1.sigmoid(), g2.tanh(), g3.sigmoid()
        a, b, c = s
        na = f * a + (1 - f) * p['w'] * b + z * x
        nb = -q * b + c / 2 + r * p['v'] + g3
        nc = (1 - r) * torch.exp(-F.softplus(p['v'])) * c + g3 * a / 2 - b / (2 + g1.exp()) + r * x
        return [na, nb, nc], torch.cat((na, nc), dim=1)
    if cell == 'pair_out':
        g1, g2 = proj.chunk(2, dim=-1)
        h, m = s
        d = torch.exp(-torch.exp(p['decay']))
        nh = d * h + (1 - d) * g1 - m / 4
        nm = torch.where(g2 >= 0, m, h / 2) + r * g1
        return [nh, nm], nh.tanh() * g2.sigmoid() + nm * p['decay']
    raise ValueError(cell)


GATES = {'coupled3': 3, 'pair_out': 2}
STATES = {'coupled3': ['a', 'b', 'c'], 'pair_out': ['h', 'm']}
OUTPUTS = {'coupled3': 2, 'pair_out': 1}
PARAMS = {'coupled3': ['w', 'v'], 'pair_out': ['decay']}


def segment(cell, p, xs, states, first, bf16):  # xs n x I -> outputs n x O·H, final states
    proj = BF16Linear.apply(xs, p['weight_ih']) if bf16 else xs @ p['weight_ih'].T
    proj = proj + p['bias_ih']
    out = []
    for k in range(xs.shape[0]):
        states, y = step(cell, p, proj[k:k + 1], xs[k:k + 1], states, first and k == 0)
        out.append(y)
    return torch.cat(out), states


def layer_params(t, l, d):
    sfx = '_l%d%s' % (l, '_reverse' if d else '')
    return {n[:-len(sfx)]: v for n, v in t.items() if n.endswith(sfx)}


def forward(cell, t, names, layers, D, lengths, resets, h0, bf16):
    T, B = t['xs'].shape[0], t['xs'].shape[1]
    rows, finals = [], {s: [[None] * B for _ in range(layers * D)] for s in names}
    for b in range(B):
        n = lengths[b]
        starts = [k for k in range(n) if k == 0 or resets[k, b]]
        outs = []
        for s0, e in zip(starts, starts[1:] + [n]):
            inp = t['xs'][s0:e, b]
            flags = (bool(resets[s0, b]), e < n)
            for l in range(layers):
                ys = []
                for d in range(D):
                    k = D * l + d
                    init = [h0[s][k, b:b + 1] for s in names]
                    y, fin = segment(cell, layer_params(t, l, d), inp.flip(0) if d else inp,
                                     init, flags[d], bf16)
                    ys.append(y.flip(0) if d else y)
                    if (d == 0 and e == n) or (d == 1 and s0 == 0):
                        for s, v in zip(names, fin):
                            finals[s][k][b] = v[0]
                inp = torch.cat(ys, dim=1)
            outs.append(inp)
        out = torch.cat(outs)
        rows.append(torch.cat((out, torch.zeros(T - n, out.shape[1]))))
    return torch.stack(rows, dim=1), [torch.stack([torch.stack(f) for f in finals[s]])
                                      for s in names]


def case(name, cell, T, B, I, H, lengths, initial, resets_at, seed, layers=1, bidir=False,
         bf16=False):
    g_ = torch.Generator().manual_seed(seed)
    rnd = lambda *s: torch.randn(*s, generator=g_)
    f32 = (lambda v: v.float().double()) if bf16 else (lambda v: v)
    G, k, D = GATES[cell], 1 / H ** 0.5, 2 if bidir else 1
    names, params = STATES[cell], PARAMS[cell]
    OH = OUTPUTS[cell] * H
    t, order = {'xs': f32(rnd(T, B, I))}, []
    for l in range(layers):
        for d in range(D):
            sfx = '_l%d%s' % (l, '_reverse' if d else '')
            t['weight_ih' + sfx] = f32(rnd(G * H, I if l == 0 else D * OH) * k)
            t['bias_ih' + sfx] = rnd(G * H) * k
            order += ['weight_ih' + sfx, 'bias_ih' + sfx]
            for p in params:
                t[p + sfx] = rnd(H) * 0.5
                order.append(p + sfx)
    one = layers == 1 and not bidir  # the states are (B, H), else (layers·D, B, H)
    if initial:
        for s in names:
            t[s + '0'] = rnd(B, H) * 0.5 if one else rnd(layers * D, B, H) * 0.5
    resets = torch.zeros(T, B, dtype=torch.bool)
    for (st, row) in resets_at:
        resets[st, row] = True

    def run(leaves):
        h0 = {s: (leaves[s + '0'].view(layers * D, B, H) if initial
                  else torch.zeros(layers * D, B, H)) for s in names}
        hs, fin = forward(cell, leaves, names, layers, D, lengths, resets, h0, bf16)
        out = {'hs': hs}
        for s, v in zip(names, fin):
            out[s + '_n'] = v[0] if one else v
        return out

    def gradients(leaves):
        got = run(leaves)
        loss = (got['hs'] * leaves['r']).sum()
        for s in names:
            loss = loss + (got[s + '_n'] * leaves['s_' + s]).sum()
        wrt = ['xs'] + order + ([s + '0' for s in names] if initial else [])
        grads = torch.autograd.grad(loss, [leaves[n] for n in wrt], allow_unused=True)
        out = {n: v.detach() for n, v in got.items()}
        out.update({'d_' + n: torch.zeros_like(leaves[n]) if v is None else v
                    for n, v in zip(wrt, grads)})
        return out

    leaves = {n: v.clone().requires_grad_() for n, v in t.items()}
    shapes = {n: v.shape for n, v in run(leaves).items()}
    leaves['r'] = t['r'] = rnd(*shapes['hs'])
    for s in names:
        leaves['s_' + s] = t['s_' + s] = rnd(*shapes[s + '_n'])
    out = gradients(leaves)
    torch.set_default_dtype(torch.float32)
    leaves32 = {n: v.detach().float().requires_grad_(n != 'r' and not n.startswith('s_'))
                for n, v in leaves.items()}
    out32 = gradients(leaves32)
    torch.set_default_dtype(torch.float64)
    error32 = {n: float((out32[n].double() - v).norm() / max(float(v.norm()), 1e-300))
               for n, v in out.items()}
    out.update({n: v.detach() for n, v in t.items()})
    out['resets'] = resets
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    for n, v in out.items():
        np.save(os.path.join(d, n + '.npy'), v.numpy())
    with open(os.path.join(d, 'config.json'), 'w') as f:
        json.dump({'cell': cell, 'T': T, 'B': B, 'I': I, 'H': H, 'lengths': lengths,
                   'states': names, 'params': params, 'bias': True,
                   'resets': len(resets_at) > 0, 'num_layers': layers, 'bidirectional': bidir,
                   'compute': 'bfloat16' if bf16 else None,
                   'pytorch_float32_error': error32}, f)


# ragged, resets at step 0 and later, initial states (read at every reset: reset v, reset x)
case('coupled3_ragged_resets', 'coupled3', 7, 3, 5, 5, [7, 4, 6], True,
     [(0, 0), (3, 0), (2, 1), (5, 2)], 301)
# bidirectional, H = 17 (vector tails), a reset at every step of one row, a length of 1
case('bidir_coupled3_h17', 'coupled3', 5, 3, 17, 17, [5, 5, 1], True,
     [(k, 1) for k in range(5)] + [(2, 0)], 302, bidir=True)
# 2 layers bidirectional over a computed output, ragged, resets, no initial state
case('bidir_pair_out_2layers', 'pair_out', 6, 3, 4, 6, [6, 2, 5], False,
     [(3, 0), (1, 2), (4, 2)], 303, layers=2, bidir=True)
# more than 256 channels in a row, B = 1, initial states
case('pair_out_h259', 'pair_out', 4, 1, 3, 259, [4], True, [(2, 0)], 304)
# compute = 'bfloat16': one layer of each, ragged, with resets
case('bf16_coupled3', 'coupled3', 6, 3, 9, 9, [6, 3, 5], True, [(2, 0), (1, 2)], 305,
     bf16=True)
case('bf16_pair_out', 'pair_out', 5, 2, 7, 10, [5, 4], True, [(3, 0)], 306, bf16=True)
