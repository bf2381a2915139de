#!/usr/bin/env python3
# More references for the linear cells (spec/linear_more_spec.lua), float64, in PyTorch: the
# shapes and options spec/data/linear_cells leaves out -- H = 1, 3, 17, 33 and 257 (vector
# tails; more than 256 channels in a row, the CPU scan's pieces), B = 1, T = 1, a long T, 2 and
# 3 layers in one direction, 3 layers bidirectional, input size != hidden size, no initial
# state (zeros), lengths of 1 and T in one batch, resets at step 0, at a sequence's last step,
# at every step, and a reset tensor of zeros.
# Written from the papers' equations (and lucidrains/minGRU-pytorch's g for minGRU and
# minLSTM, google-deepmind/recurrentgemma's RGLRU with its SqrtBoundDerivative and segment
# resets), not from fused's code: every sequence is cut at its resets and each segment runs as
# its own sequence through every layer and direction, from the initial states (a reset returns
# the states to their initial values). The forward direction's first step of a segment reads
# reset = its own flag; the reverse direction's first step (the segment's last) reads 1 where
# another segment follows, 0 at the sequence's end (docs/scan.md). Final states: the forward's
# after the last segment, the reverse's after the first segment's first step. hs is zero past
# a sequence's length.
# loss = sum(hs * r) + sum over the states of sum(state_n * s_<state>); the gradients are
# autograd's. config.json's pytorch_float32_error: PyTorch's own float32 error per tensor, the
# same code run from the inputs rounded to float32 (the golden rule: max(1e-5, 4 e)).
# A case with no initial state stores no <state>0 (and no d_<state>0): the spec passes nil.
# train_*: nn.Sequential(the layer, Linear) trained by SGD with momentum on the mean squared
# error, as torch.optim.SGD and nn.MSELoss compute them: the parameters (named as fused's
# Sequential names them, from 0) before (init_*) and after (<name>) the steps, every step's loss.
# Run: /work/venv-torch/bin/python spec/data/linear_more/gen.py
import json, os
import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
torch.set_default_dtype(torch.float64)


def g(x):  # minGRU-pytorch's positive function
    return torch.where(x >= 0, x + 0.5, x.sigmoid())


class SqrtBoundDerivative(torch.autograd.Function):  # recurrentgemma's
    @staticmethod
    def forward(ctx, x, max_gradient):
        ctx.save_for_backward(x)
        ctx.max_gradient = max_gradient
        return torch.sqrt(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output / torch.sqrt(torch.clip(4.0 * x, min=1 / ctx.max_gradient ** 2)), None


# One step of each cell: proj the input projections (1 x G·H) at the step, x the layer's input,
# states a list of (1 x H), reset the flag the step reads. -> new states, output (1 x O·H).
def step(cell, p, proj, x, states, reset):
    if cell == 'mingru':  # Feng et al. 2024: h = (1 - z) h + z g(h~)
        hidden, gate = proj.chunk(2, dim=-1)
        z = gate.sigmoid()
        h = (1 - z) * states[0] + z * g(hidden)
        return [h], h
    if cell == 'minlstm':  # normalised gates f' = f / (f + i), i' = i / (f + i)
        hidden, f, i = proj.chunk(3, dim=-1)
        f, i = f.sigmoid(), i.sigmoid()
        h = f / (f + i) * states[0] + i / (f + i) * g(hidden)
        return [h], h
    if cell == 'rglru':  # De et al. 2024, recurrentgemma's RGLRU with a one-block gate
        gate_x, gate_a = proj.chunk(2, dim=-1)
        log_a = -8.0 * gate_a.sigmoid() * F.softplus(p['a_param'])
        a = torch.exp(log_a)
        mult = 1.0 if reset else SqrtBoundDerivative.apply(1 - torch.exp(2 * log_a), 1000)
        h = (0.0 if reset else a * states[0]) + x * gate_x.sigmoid() * mult
        return [h], h
    if cell == 'lru':  # Orvieto et al. 2023: h = lambda h + gamma B x, complex diagonal
        lam = torch.exp(-torch.exp(p['nu_log']) + 1j * torch.exp(p['theta_log']))
        bx = torch.complex(*proj.chunk(2, dim=-1))
        h = lam * torch.complex(states[0], states[1]) + torch.exp(p['gamma_log']) * bx
        return [h.real, h.imag], torch.cat((h.real, h.imag), dim=1)
    if cell == 'sru':  # Lei et al. 2017: c = f c + (1 - f) x~, h = r tanh(c) + (1 - r) x'
        cand, f, r, highway = proj.chunk(4, dim=-1)
        f, r = f.sigmoid(), r.sigmoid()
        c = f * states[0] + (1 - f) * cand
        return [c], r * c.tanh() + (1 - r) * highway
    raise ValueError(cell)


def segment(cell, p, xs, states, first):  # xs n x I -> outputs n x O·H, final states
    proj = xs @ p['weight_ih'].T + (p['bias_ih'] if 'bias_ih' in p else 0)
    out = []
    for k in range(xs.shape[0]):
        states, y = step(cell, p, proj[k:k + 1], xs[k:k + 1], states, first and k == 0)
        out.append(y)
    return torch.cat(out), states


def layer_params(t, l, d):
    sfx = '_l%d%s' % (l, '_reverse' if d else '')
    return {n[:-len(sfx)]: v for n, v in t.items() if n.endswith(sfx)}


def forward(cell, t, names, layers, D, lengths, resets, h0):
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
                                     init, flags[d])
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


GATES = {'mingru': 2, 'minlstm': 3, 'rglru': 2, 'lru': 2, 'sru': 4}
STATES = {'lru': ['re', 'im'], 'sru': ['c']}
OUTPUTS = {'lru': 2}
PARAMS = {'rglru': ['a_param'], 'lru': ['nu_log', 'theta_log', 'gamma_log']}
BIAS = {'mingru': False, 'minlstm': False, 'rglru': True, 'lru': True, 'sru': True}


def case(name, cell, T, B, I, H, lengths, initial, resets_at, seed, layers=1, bidir=False):
    g_ = torch.Generator().manual_seed(seed)
    rnd = lambda *s: torch.randn(*s, generator=g_)
    G, k, D = GATES[cell], 1 / H ** 0.5, 2 if bidir else 1
    names, params = STATES.get(cell, ['h']), PARAMS.get(cell, [])
    OH = OUTPUTS.get(cell, 1) * H
    t, order = {'xs': rnd(T, B, I)}, []
    for l in range(layers):
        for d in range(D):
            sfx = '_l%d%s' % (l, '_reverse' if d else '')
            t['weight_ih' + sfx] = rnd(G * H, I if l == 0 else D * OH) * k
            order.append('weight_ih' + sfx)
            if BIAS[cell]:
                t['bias_ih' + sfx] = rnd(G * H) * k
                order.append('bias_ih' + sfx)
            for p in params:
                t[p + sfx] = rnd(H) * 0.5 + (-0.5 if p == 'nu_log' else 0)
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
        hs, fin = forward(cell, leaves, names, layers, D, lengths, resets, h0)
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
        # unused: an initial state every row resets at step 0 has no gradient
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
    leaves32 = {n: v.detach().float().requires_grad_(n not in ('r',) and not n.startswith('s_'))
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
                   'states': names, 'params': params, 'bias': BIAS[cell],
                   'resets': len(resets_at) > 0 or name.endswith('zero_resets'),
                   'num_layers': layers, 'bidirectional': bidir,
                   'pytorch_float32_error': error32}, f)


# B = T = H = I = 1
case('mingru_one', 'mingru', 1, 1, 1, 1, [1], True, [], 101)
# more than 256 channels in a row, with a reset at step 0 and one later; a length of 1
case('mingru_h257_resets', 'mingru', 5, 2, 3, 257, [5, 1], True, [(0, 0), (3, 0), (0, 1)], 102)
# 3 layers in one direction, no initial state, H = 17, lengths 9 and 1 together, resets
case('minlstm_3layers_no_h0', 'minlstm', 9, 3, 5, 17, [9, 1, 4], False, [(4, 0), (2, 2)], 103,
     layers=3)
# 2 layers of RG-LRU (input size = hidden size), H = 33, resets at step 0 of both rows
case('rglru_2layers_h33', 'rglru', 8, 2, 33, 33, [8, 3], True, [(0, 0), (0, 1), (5, 0)], 104,
     layers=2)
# 3 layers bidirectional, H = 3, I = 2, lengths 6, 1 and 4; resets at step 0 and the last step
case('bidir_lru_3layers', 'lru', 6, 3, 2, 3, [6, 1, 4], True, [(0, 0), (5, 0), (3, 2)], 105,
     layers=3, bidir=True)
# H = 1, 2 layers bidirectional, a reset at every step of one row
case('bidir_sru_h1_every_step', 'sru', 5, 4, 3, 1, [5, 5, 2, 1], True,
     [(k, 1) for k in range(5)] + [(4, 0), (1, 2)], 106, layers=2, bidir=True)
# B = 1, bidirectional RG-LRU with a reset, no initial state
case('bidir_rglru_b1_no_h0', 'rglru', 4, 1, 33, 33, [4], False, [(2, 0)], 107, bidir=True)
# a long sequence with resets and ragged lengths
case('mingru_long_resets', 'mingru', 700, 2, 2, 3, [700, 517], True, [(100, 0), (516, 1)], 108)
# a reset tensor of zeros: the same as none
case('bidir_minlstm_zero_resets', 'minlstm', 5, 2, 4, 17, [5, 3], True, [], 109, bidir=True)
# T = 1, B = 1 bidirectional, reset at step 0
case('bidir_mingru_t1', 'mingru', 1, 1, 4, 5, [1], True, [(0, 0)], 110, bidir=True)


def train(name, cell, T, B, I, H, layers, bidir, out, steps, lr, momentum, seed):
    g_ = torch.Generator().manual_seed(seed)
    rnd = lambda *s: torch.randn(*s, generator=g_)
    G, D = GATES[cell], 2 if bidir else 1
    names, OH = STATES.get(cell, ['h']), OUTPUTS.get(cell, 1) * H
    t, order = {}, []
    for l in range(layers):
        for d in range(D):
            sfx = '_l%d%s' % (l, '_reverse' if d else '')
            t['weight_ih' + sfx] = rnd(G * H, I if l == 0 else D * OH) / H ** 0.5
            order.append('weight_ih' + sfx)
            if BIAS[cell]:
                t['bias_ih' + sfx] = rnd(G * H) / H ** 0.5
                order.append('bias_ih' + sfx)
            for p in PARAMS.get(cell, []):
                t[p + sfx] = rnd(H) * 0.5 + (-0.5 if p == 'nu_log' else 0)
                order.append(p + sfx)
    lin = {'weight': rnd(out, D * OH) / (D * OH) ** 0.5, 'bias': rnd(out) * 0.1}
    xs, target = rnd(T, B, I), rnd(T, B, out)
    params = {'0.' + n: t[n].clone().requires_grad_() for n in order}
    params.update({'1.' + n: v.clone().requires_grad_() for n, v in lin.items()})
    init = {'init_' + n: v.detach().clone() for n, v in params.items()}
    opt = torch.optim.SGD(list(params.values()), lr=lr, momentum=momentum)
    zeros = {s: torch.zeros(layers * D, B, H) for s in names}
    no_resets = torch.zeros(T, B, dtype=torch.bool)
    losses = []
    for _ in range(steps):
        leaves = {n[2:]: v for n, v in params.items() if n.startswith('0.')}
        leaves['xs'] = xs
        hs, _ = forward(cell, leaves, names, layers, D, [T] * B, no_resets, zeros)
        y = hs @ params['1.weight'].T + params['1.bias']
        loss = F.mse_loss(y, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    save = dict(init, xs=xs, target=target)
    save.update({n: v.detach() for n, v in params.items()})
    for n, v in save.items():
        np.save(os.path.join(d, n + '.npy'), v.numpy())
    with open(os.path.join(d, 'config.json'), 'w') as f:
        json.dump({'cell': cell, 'I': I, 'H': H, 'num_layers': layers, 'bidirectional': bidir,
                   'bias': BIAS[cell], 'out': out, 'lr': lr, 'momentum': momentum,
                   'losses': losses}, f)


train('train_mingru_2layers', 'mingru', 6, 3, 3, 5, 2, False, 2, 4, 0.5, 0.9, 201)
train('train_bidir_lru', 'lru', 5, 2, 3, 4, 1, True, 2, 4, 0.1, 0.9, 202)
train('train_rglru_2layers', 'rglru', 5, 2, 4, 4, 2, False, 3, 4, 0.5, 0.9, 203)
