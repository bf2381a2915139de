#!/usr/bin/env python3
# References for spec/linear_cells_spec.lua, float64, in PyTorch (one layer, one direction but
# for the bidir_ cases), of
#   - minGRU and minLSTM as lucidrains/minGRU-pytorch computes them (minGRU_pytorch/minGRU.py,
#     minLSTM.py, v0.2.1; their functions written out below): a whole batch through its
#     parallel log-space path (heinsen_associative_scan_log), checked here against its
#     sequential path (seq_len 1, step by step), which also gives the ragged cases;
#   - RG-LRU as google-deepmind/recurrentgemma's PyTorch RGLRU computes it (its forward and
#     rnn_scan written out below, with SqrtBoundDerivative), with segment resets, the gates'
#     projections dense (its BlockDiagonalLinear with one block);
#   - the LRU from the paper's equations in complex arithmetic (Orvieto et al. 2023, eq. 1-3);
#   - SRU from the paper's equations (Lei et al. 2017: c = f c + (1 - f) x~, h = r tanh(c) +
#     (1 - r) x').
# Bidirectional cases with resets (bidir_*) cut each sequence at its resets and run every
# segment as its own sequence through every layer and direction, from the initial states: the
# forward direction's first step of a segment reads reset = 1 (the sequence's first step: its
# own flag), the reverse direction's first step (the segment's last) reads 1 where another
# segment follows, 0 at the sequence's end. Final states: the forward's after the last segment,
# the reverse's after the first segment's step 1.
# config.json's pytorch_float32_error: PyTorch's own float32 error per tensor on the case, the
# same code run from the float64 inputs rounded to float32 (the golden rule:
# ../shared/golden/README.md, max(1e-5, 4 e)).
# A ragged case runs each sequence for its own length: hs is zero past it, the final states are
# its last step's. loss = sum(hs * r) + sum over the states of sum(state_n * s_<state>); the
# gradients are autograd's of it. Run: /work/venv-torch/bin/python spec/data/linear_cells/gen.py
import json, os
import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
torch.set_default_dtype(torch.float64)


# minGRU-pytorch's
def heinsen_associative_scan_log(log_coeffs, log_values):
    a_star = log_coeffs.cumsum(dim=1)
    log_h0_plus_b_star = (log_values - a_star).logcumsumexp(dim=1)
    return (a_star + log_h0_plus_b_star).exp()


def g(x):
    return torch.where(x >= 0, x + 0.5, x.sigmoid())


def log_g(x):
    return torch.where(x >= 0, (F.relu(x) + 0.5).log(), -F.softplus(-x))


def mingru_parallel(proj, prev_hidden):  # proj (B, T, 2H), prev_hidden (B, 1, H) > 0
    hidden, gate = proj.chunk(2, dim=-1)
    log_coeffs = -F.softplus(gate)
    log_values = -F.softplus(-gate) + log_g(hidden)
    log_values = torch.cat((prev_hidden.log(), log_values), dim=1)
    log_coeffs = F.pad(log_coeffs, (0, 0, 1, 0))
    return heinsen_associative_scan_log(log_coeffs, log_values)[:, -proj.shape[1]:]


def mingru_step(proj, prev):  # its seq_len == 1 path
    hidden, gate = proj.chunk(2, dim=-1)
    return torch.lerp(prev, g(hidden), gate.sigmoid())


def minlstm_parallel(proj):  # no prev_hidden: h0 = 0
    hidden, f_gate, i_gate = proj.chunk(3, dim=-1)
    diff = F.softplus(-f_gate) - F.softplus(-i_gate)
    log_f, log_i = -F.softplus(diff), -F.softplus(-diff)
    return heinsen_associative_scan_log(log_f, log_i + log_g(hidden))


def minlstm_step(proj, prev):
    hidden, f_gate, i_gate = proj.chunk(3, dim=-1)
    f, i = f_gate.sigmoid(), i_gate.sigmoid()
    return prev * (f / (f + i)) + g(hidden) * (i / (f + i))


# recurrentgemma's (recurrentgemma/torch/layers.py)
class SqrtBoundDerivative(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, max_gradient):
        ctx.save_for_backward(x)
        ctx.max_gradient = max_gradient
        return torch.sqrt(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        clipped_x_times_4 = torch.clip(4.0 * x, min=1 / (ctx.max_gradient ** 2))
        return grad_output / torch.sqrt(clipped_x_times_4), None


def rglru(x, reset, t, prev_h):  # x (B, T, H), reset (B, T) bool; the layer's weights in t
    gate_x = torch.sigmoid(x @ t['weight_ih_l0'][:x.shape[2]].T + t['bias_ih_l0'][:x.shape[2]])
    gate_a = torch.sigmoid(x @ t['weight_ih_l0'][x.shape[2]:].T + t['bias_ih_l0'][x.shape[2]:])
    log_a = -8.0 * gate_a * F.softplus(t['a_param_l0'])
    a, a_square = torch.exp(log_a), torch.exp(2 * log_a)
    gated_x = x * gate_x
    multiplier = SqrtBoundDerivative.apply(1 - a_square, 1000)
    r = reset[..., None]
    multiplier = r + ~r * multiplier
    normalized_x = gated_x * multiplier.type(x.dtype)
    # rnn_scan: h_t = a_t * h_{t-1} * ~reset_t + x_t
    h, ys = prev_h, []
    for k in range(x.shape[1]):
        h = a[:, k] * h * ~r[:, k] + normalized_x[:, k]
        ys.append(h)
    return torch.stack(ys, dim=1)


def lru_step(bx, h, t):  # bx = (re, im) of B x; h complex
    lam = torch.exp(-torch.exp(t['nu_log_l0']) + 1j * torch.exp(t['theta_log_l0']))
    return lam * h + torch.exp(t['gamma_log_l0']) * torch.complex(bx[0], bx[1])


def sru_step(proj, c):  # -> new c, h
    cand, f, r, highway = proj.chunk(4, dim=-1)
    f, r = f.sigmoid(), r.sigmoid()
    c = f * c + (1 - f) * cand
    return c, r * c.tanh() + (1 - r) * highway


def sequential(cell, t, lengths, states):
    xs = t['xs']
    T = xs.shape[0]
    mask = lambda k: (torch.tensor(lengths) > k).to(xs.dtype).unsqueeze(1)
    hs, out = [], []
    if cell == 'lru':
        h = torch.complex(t['re0'], t['im0'])
        for k in range(T):
            proj = xs[k] @ t['weight_ih_l0'].T + t['bias_ih_l0']
            new = lru_step(proj.chunk(2, dim=-1), h, t)
            m = mask(k)
            h = m * new + (1 - m) * h
            out.append(torch.cat((m * new.real, m * new.imag), dim=1))
        return torch.stack(out), [h.real, h.imag]
    if cell == 'sru':
        c = t['c0']
        for k in range(T):
            new, h = sru_step(xs[k] @ t['weight_ih_l0'].T + t['bias_ih_l0'], c)
            m = mask(k)
            c = m * new + (1 - m) * c
            out.append(m * h)
        return torch.stack(out), [c]
    h = t['h0']
    for k in range(T):
        proj = xs[k] @ t['weight_ih_l0'].T
        new = mingru_step(proj, h) if cell == 'mingru' else minlstm_step(proj, h)
        m = mask(k)
        h = m * new + (1 - m) * h
        out.append(m * new)
    return torch.stack(out), [h]


def run(cell, t, lengths, resets, exact=True):
    # exact: float64, where the parallel paths are checked against the sequential ones
    T, B = t['xs'].shape[0], t['xs'].shape[1]
    whole = all(n == T for n in lengths)
    if cell == 'rglru':  # ragged: each sequence alone, for its length
        hs, hn = torch.zeros(T, B, t['h0'].shape[1]), []
        for b in range(B):
            n = lengths[b]
            y = rglru(t['xs'][:n, b:b + 1].transpose(0, 1), resets[:n, b:b + 1].T, t, t['h0'][b:b + 1])
            hs = hs.index_put((torch.arange(n), torch.tensor([b] * n)), y[0])
            hn.append(y[0, -1])
        return hs, [torch.stack(hn)]
    if whole and cell == 'mingru':
        y = mingru_parallel((t['xs'] @ t['weight_ih_l0'].T).transpose(0, 1), t['h0'].unsqueeze(1))
        seq, _ = sequential(cell, t, lengths, None)
        assert not exact or (y.transpose(0, 1) - seq).abs().max() < 1e-12
        return y.transpose(0, 1), [y[:, -1]]
    if whole and cell == 'minlstm' and bool((t['h0'] == 0).all()):
        y = minlstm_parallel((t['xs'] @ t['weight_ih_l0'].T).transpose(0, 1))
        seq, _ = sequential(cell, t, lengths, None)
        assert not exact or (y.transpose(0, 1) - seq).abs().max() < 1e-12
        return y.transpose(0, 1), [y[:, -1]]
    return sequential(cell, t, lengths, None)


# One sequence's segment (x: n x I) through one layer-direction (p: its parameters under the
# _l0 names) from the states given (each 1 x H): its outputs (n x O·H) and final states. first:
# the reset its first step reads (the cells that read reset: RG-LRU).
def segment(cell, p, x, states, first):
    n = x.shape[0]
    if cell == 'rglru':
        reset = torch.zeros(1, n, dtype=torch.bool)
        reset[0, 0] = first
        y = rglru(x.unsqueeze(0), reset, p, states[0])[0]
        return y, [y[-1:]]
    proj = x @ p['weight_ih_l0'].T + (p['bias_ih_l0'] if 'bias_ih_l0' in p else 0)
    out = []
    if cell == 'lru':
        h = torch.complex(states[0], states[1])
        for k in range(n):
            h = lru_step(proj[k:k + 1].chunk(2, dim=-1), h, p)
            out.append(torch.cat((h.real, h.imag), dim=1))
        return torch.cat(out), [h.real, h.imag]
    h = states[0]
    for k in range(n):
        if cell == 'sru':
            h, y = sru_step(proj[k:k + 1], h)
            out.append(y)
            continue
        h = (mingru_step if cell == 'mingru' else minlstm_step)(proj[k:k + 1], h)
        out.append(h)
    return torch.cat(out), [h]


def direction_params(t, l, d):  # layer l, direction d's parameters, under the _l0 names
    sfx = '_l%d%s' % (l, '_reverse' if d else '')
    return {n[:-len(sfx)] + '_l0': v for n, v in t.items() if n.endswith(sfx)}


def bidirectional(cell, t, layers, lengths, resets, names):
    # every row's segments, each its own sequence through the layers: hs, final states
    T, B = t['xs'].shape[0], t['xs'].shape[1]
    rows, finals = [], {s: [[None] * B for _ in range(2 * layers)] for s in names}
    for b in range(B):
        n = lengths[b]
        starts = [k for k in range(n) if k == 0 or resets[k, b]]
        segs = list(zip(starts, starts[1:] + [n]))
        outs = []
        for (s0, e) in segs:
            inp = t['xs'][s0:e, b]
            flags = (bool(resets[s0, b]), e < n)
            for l in range(layers):
                ys = []
                for d in (0, 1):
                    k = 2 * l + d
                    init = [t[s + '0'][k, b:b + 1] for s in names]
                    y, fin = segment(cell, direction_params(t, l, d), inp.flip(0) if d else inp,
                                     init, flags[d])
                    ys.append(y.flip(0) if d else y)
                    if (d == 0 and e == n) or (d == 1 and s0 == 0):
                        for s, v in zip(names, fin):
                            finals[s][k][b] = v[0]
                inp = torch.cat(ys, dim=1)
            outs.append(inp)
        out = torch.cat(outs)
        rows.append(torch.cat((out, torch.zeros(T - n, out.shape[1]))))
    hs = torch.stack(rows, dim=1)
    return hs, [torch.stack([torch.stack(f) for f in finals[s]]) for s in names]


GATES = {'mingru': 2, 'minlstm': 3, 'rglru': 2, 'lru': 2, 'sru': 4}
STATES = {'lru': ['re', 'im'], 'sru': ['c']}
OUTPUTS = {'lru': 2}
PARAMS = {'rglru': ['a_param'], 'lru': ['nu_log', 'theta_log', 'gamma_log']}
BIAS = {'mingru': False, 'minlstm': False, 'rglru': True, 'lru': True, 'sru': True}


def results(cell, t, lengths, resets, names, layers, bidir, exact):
    if bidir:
        return bidirectional(cell, t, layers, lengths, resets, names)
    return run(cell, t, lengths, resets, exact)


def case(name, cell, T, B, I, H, lengths, initial, resets_at, seed, layers=1, bidir=False,
         scale=1.0):
    # scale: the input weights' scale (large: the gates deep in saturation)
    g_ = torch.Generator().manual_seed(seed)
    rnd = lambda *s: torch.randn(*s, generator=g_)
    G, k = GATES[cell], 1 / H ** 0.5
    names, params = STATES.get(cell, ['h']), PARAMS.get(cell, [])
    D, OH = 2 if bidir else 1, OUTPUTS.get(cell, 1) * H
    t = {'xs': rnd(T, B, I)}
    order = []
    for l in range(layers):
        for d in range(D):
            sfx = '_l%d%s' % (l, '_reverse' if d else '')
            t['weight_ih' + sfx] = rnd(G * H, I if l == 0 else D * OH) * k * scale
            order.append('weight_ih' + sfx)
            if BIAS[cell]:
                t['bias_ih' + sfx] = rnd(G * H) * k
                order.append('bias_ih' + sfx)
            for p in params:
                t[p + sfx] = rnd(H) * 0.5 + (-0.5 if p == 'nu_log' else 0)
                order.append(p + sfx)
    shape = (layers * D, B, H) if bidir else (B, H)
    for s in names:
        t[s + '0'] = rnd(*shape) * 0.5 if initial else torch.zeros(*shape)
        if cell == 'mingru' and not bidir:  # its log-space path takes a positive prev_hidden
            t[s + '0'] = t[s + '0'].abs() + 0.1
    resets = torch.zeros(T, B, dtype=torch.bool)
    for (step, row) in resets_at:
        resets[step, row] = True

    def forward(leaves, exact):
        hs, finals = results(cell, leaves, lengths, resets, names, layers, bidir, exact)
        return {'hs': hs, **{s + '_n': v for s, v in zip(names, finals)}}

    leaves = {n: v.clone().requires_grad_() for n, v in t.items()}
    got = forward(leaves, True)
    r = rnd(*got['hs'].shape)
    sv = {s: rnd(*got[s + '_n'].shape) for s in names}

    def gradients(leaves, got):
        loss = (got['hs'] * leaves['r']).sum()
        for s in names:
            loss = loss + (got[s + '_n'] * leaves['s_' + s]).sum()
        wrt = [n for n in ['xs'] + order + [s + '0' for s in names] if n in leaves]
        grads = torch.autograd.grad(loss, [leaves[n] for n in wrt], allow_unused=True)
        out = {n: v.detach() for n, v in got.items()}
        for n, v in zip(wrt, grads):
            if v is not None:  # minLSTM's parallel path takes no h0
                out['d_' + n] = v
        return out

    leaves['r'] = r
    for s in names:
        leaves['s_' + s] = sv[s]
    out = gradients(leaves, got)
    # PyTorch's own float32 error: the same code from the inputs rounded to float32
    torch.set_default_dtype(torch.float32)
    leaves32 = {n: v.detach().float().requires_grad_(n in t) for n, v in leaves.items()}
    out32 = gradients(leaves32, forward(leaves32, False))
    torch.set_default_dtype(torch.float64)
    error32 = {n: float((out32[n].double() - v).norm() / max(float(v.norm()), 1e-300))
               for n, v in out.items()}
    out.update(t)
    out['r'] = r
    out.update({'s_' + s: v for s, v in sv.items()})
    out['resets'] = resets
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    for n, v in out.items():
        np.save(os.path.join(d, n + '.npy'), v.detach().numpy())
    with open(os.path.join(d, 'config.json'), 'w') as f:
        json.dump({'cell': cell, 'T': T, 'B': B, 'I': I, 'H': H, 'lengths': lengths,
                   'states': names, 'params': params, 'bias': BIAS[cell],
                   'resets': len(resets_at) > 0, 'num_layers': layers, 'bidirectional': bidir,
                   'pytorch_float32_error': error32}, f)


case('mingru_full', 'mingru', 6, 3, 4, 5, [6, 6, 6], True, [], 1)
case('mingru_ragged', 'mingru', 6, 3, 4, 5, [6, 2, 4], True, [], 2)
case('minlstm_full', 'minlstm', 6, 3, 4, 5, [6, 6, 6], False, [], 3)
case('minlstm_state_ragged', 'minlstm', 6, 3, 4, 5, [3, 6, 1], True, [], 4)
case('rglru_resets', 'rglru', 7, 3, 5, 5, [7, 7, 7], True, [(0, 0), (3, 0), (2, 1), (6, 2)], 5)
case('rglru_ragged_resets', 'rglru', 7, 3, 5, 5, [7, 4, 2], True, [(0, 1), (2, 1), (5, 0)], 6)
case('lru_ragged', 'lru', 6, 3, 4, 5, [6, 3, 5], True, [], 7)
# H = 21: whole vectors and a tail on every CPU vector path, in float32 and float64
case('mingru_wide_ragged', 'mingru', 5, 3, 6, 21, [5, 3, 4], True, [], 8)
case('minlstm_wide', 'minlstm', 5, 2, 6, 21, [5, 5], False, [], 9)
case('rglru_wide_ragged_resets', 'rglru', 6, 3, 21, 21, [6, 5, 3], True, [(0, 0), (3, 0), (2, 1)], 10)
case('lru_wide_ragged', 'lru', 5, 3, 6, 21, [5, 2, 4], True, [], 11)
case('sru_ragged', 'sru', 6, 3, 4, 5, [6, 2, 4], True, [], 12)
case('sru_wide', 'sru', 5, 2, 6, 21, [5, 5], True, [], 13)
# bidirectional with resets: every segment its own sequence
case('bidir_mingru_2layers_ragged_resets', 'mingru', 7, 3, 4, 5, [7, 5, 6], True,
     [(0, 0), (3, 0), (5, 0), (2, 1), (4, 1), (1, 2)], 14, layers=2, bidir=True)
case('bidir_rglru_ragged_resets', 'rglru', 7, 3, 5, 5, [7, 4, 6], True,
     [(0, 0), (4, 0), (2, 1), (3, 1), (5, 2)], 15, bidir=True)
case('bidir_lru_ragged_resets', 'lru', 6, 3, 4, 5, [6, 3, 5], True, [(2, 0), (1, 1), (4, 2)], 16,
     bidir=True)
case('bidir_sru_wide_resets', 'sru', 6, 2, 6, 21, [6, 6], True, [(3, 0), (1, 1), (5, 1)], 17,
     bidir=True)
# gates deep in saturation (input weights x 12): 1 - sigmoid and the like lose digits in float32
case('mingru_saturated', 'mingru', 6, 3, 4, 21, [6, 6, 6], True, [], 18, scale=12.0)
case('minlstm_saturated', 'minlstm', 6, 3, 4, 21, [6, 6, 6], False, [], 19, scale=12.0)
case('rglru_saturated_resets', 'rglru', 6, 3, 21, 21, [6, 6, 6], True, [(0, 0), (3, 1)], 20,
     scale=12.0)
case('lru_saturated', 'lru', 6, 3, 4, 21, [6, 4, 6], True, [], 21, scale=12.0)
case('sru_saturated', 'sru', 6, 3, 4, 21, [6, 4, 6], True, [], 22, scale=12.0)
# long sequences: float32's error grows with the steps summed
case('mingru_long', 'mingru', 400, 2, 4, 8, [400, 400], True, [], 23)
case('rglru_long_resets', 'rglru', 400, 2, 8, 8, [400, 333], True, [(0, 0), (200, 1)], 24)
