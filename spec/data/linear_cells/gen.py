#!/usr/bin/env python3
# References for spec/linear_cells_spec.lua: one layer, one direction, float64, in PyTorch, of
#   - minGRU and minLSTM as lucidrains/minGRU-pytorch computes them (minGRU_pytorch/minGRU.py,
#     minLSTM.py, v0.2.1; their functions written out below): a whole batch through its
#     parallel log-space path (heinsen_associative_scan_log), checked here against its
#     sequential path (seq_len 1, step by step), which also gives the ragged cases;
#   - RG-LRU as google-deepmind/recurrentgemma's PyTorch RGLRU computes it (its forward and
#     rnn_scan written out below, with SqrtBoundDerivative), with segment resets, the gates'
#     projections dense (its BlockDiagonalLinear with one block);
#   - the LRU from the paper's equations in complex arithmetic (Orvieto et al. 2023, eq. 1-3).
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


def sequential(cell, t, lengths, states):
    xs, H = t['xs'], t['h0'].shape[1] if 'h0' in t else t['re0'].shape[1]
    T, B = xs.shape[0], xs.shape[1]
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
    h = t['h0']
    for k in range(T):
        proj = xs[k] @ t['weight_ih_l0'].T
        new = mingru_step(proj, h) if cell == 'mingru' else minlstm_step(proj, h)
        m = mask(k)
        h = m * new + (1 - m) * h
        out.append(m * new)
    return torch.stack(out), [h]


def run(cell, t, lengths, resets):
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
        assert (y.transpose(0, 1) - seq).abs().max() < 1e-12
        return y.transpose(0, 1), [y[:, -1]]
    if whole and cell == 'minlstm' and bool((t['h0'] == 0).all()):
        y = minlstm_parallel((t['xs'] @ t['weight_ih_l0'].T).transpose(0, 1))
        seq, _ = sequential(cell, t, lengths, None)
        assert (y.transpose(0, 1) - seq).abs().max() < 1e-12
        return y.transpose(0, 1), [y[:, -1]]
    return sequential(cell, t, lengths, None)


GATES = {'mingru': 2, 'minlstm': 3, 'rglru': 2, 'lru': 2}
STATES = {'lru': ['re', 'im']}
PARAMS = {'rglru': ['a_param'], 'lru': ['nu_log', 'theta_log', 'gamma_log']}
BIAS = {'mingru': False, 'minlstm': False, 'rglru': True, 'lru': True}


def case(name, cell, T, B, I, H, lengths, initial, resets_at, seed):
    g_ = torch.Generator().manual_seed(seed)
    rnd = lambda *s: torch.randn(*s, generator=g_)
    G, k = GATES[cell], 1 / H ** 0.5
    names, params = STATES.get(cell, ['h']), PARAMS.get(cell, [])
    t = {'xs': rnd(T, B, I), 'weight_ih_l0': rnd(G * H, I) * k}
    order = ['weight_ih_l0']
    if BIAS[cell]:
        t['bias_ih_l0'] = rnd(G * H) * k
        order.append('bias_ih_l0')
    for p in params:
        t[p + '_l0'] = rnd(H) * 0.5 + (-0.5 if p == 'nu_log' else 0)
        order.append(p + '_l0')
    for s in names:
        t[s + '0'] = rnd(B, H) * 0.5 if initial else torch.zeros(B, H)
        if cell == 'mingru':  # its log-space path takes a positive prev_hidden
            t[s + '0'] = t[s + '0'].abs() + 0.1
    resets = torch.zeros(T, B, dtype=torch.bool)
    for (step, row) in resets_at:
        resets[step, row] = True
    leaves = {n: v.clone().requires_grad_() for n, v in t.items()}
    hs, finals = run(cell, leaves, lengths, resets)
    r = rnd(*hs.shape)
    loss = (hs * r).sum()
    out = {'r': r, 'hs': hs.detach()}
    for s, v in zip(names, finals):
        out['s_' + s] = rnd(B, H)
        out[s + '_n'] = v.detach()
        loss = loss + (v * out['s_' + s]).sum()
    loss.backward()
    for n in ['xs'] + order + [s + '0' for s in names]:
        if leaves[n].grad is not None:  # minLSTM's parallel path takes no h0
            out['d_' + n] = leaves[n].grad
    out.update(t)
    out['resets'] = resets
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    for n, v in out.items():
        np.save(os.path.join(d, n + '.npy'), v.detach().numpy())
    with open(os.path.join(d, 'config.json'), 'w') as f:
        json.dump({'cell': cell, 'T': T, 'B': B, 'I': I, 'H': H, 'lengths': lengths,
                   'states': names, 'params': params, 'bias': BIAS[cell],
                   'resets': len(resets_at) > 0}, f)


case('mingru_full', 'mingru', 6, 3, 4, 5, [6, 6, 6], True, [], 1)
case('mingru_ragged', 'mingru', 6, 3, 4, 5, [6, 2, 4], True, [], 2)
case('minlstm_full', 'minlstm', 6, 3, 4, 5, [6, 6, 6], False, [], 3)
case('minlstm_state_ragged', 'minlstm', 6, 3, 4, 5, [3, 6, 1], True, [], 4)
case('rglru_resets', 'rglru', 7, 3, 5, 5, [7, 7, 7], True, [(0, 0), (3, 0), (2, 1), (6, 2)], 5)
case('rglru_ragged_resets', 'rglru', 7, 3, 5, 5, [7, 4, 2], True, [(0, 1), (2, 1), (5, 0)], 6)
case('lru_ragged', 'lru', 6, 3, 4, 5, [6, 3, 5], True, [], 7)
