#!/usr/bin/env python3
# References for spec/cell_states_spec.lua (and, heads > 1, the heads spec): one layer, one
# direction, float64, in PyTorch, of
#   - xLSTM's sLSTM with its vanilla pointwise step (NX-AI/xlstm,
#     xlstm/blocks/slstm/src/vanilla/slstm.py: slstm_forward_pointwise) written out below, the
#     recurrent product block-diagonal over NH heads (NH = 1: dense), weight_hh stored as its
#     blocks, (4 H, H / NH): row r holds row r of the dense matrix on its head's columns;
#   - the peephole LSTM as TensorFlow's LSTMCell(use_peepholes=True) computes it (forget_bias
#     1), gates in PyTorch's order i, f, g, o.
# A ragged case runs each sequence for its own length: hs is zero past it, the final states are
# its last step's. loss = sum(hs * r) + sum over the states of sum(state_n * s_<state>); the
# gradients are autograd's of it. Run: /work/venv-torch/bin/python spec/data/cell_states/gen.py
import json, os
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
torch.set_default_dtype(torch.float64)


def slstm_step(raw, states):
    # xLSTM's vanilla step: torch.all(n == 0) picks the first step's stabiliser; every case here
    # has n all zero or all non-zero on each step, so it is the same element by element
    h, c, n, m = states
    i, f, z, o = raw.chunk(4, dim=1)
    log_f_m = m + torch.nn.functional.logsigmoid(f)
    m_new = i if bool(torch.all(n == 0.0)) else torch.max(i, log_f_m)
    ig, fg = torch.exp(i - m_new), torch.exp(log_f_m - m_new)
    c_new = fg * c + ig * torch.tanh(z)
    n_new = fg * n + ig
    return [torch.sigmoid(o) * c_new / n_new, c_new, n_new, m_new]


def peephole_step(raw, states, p):
    h, c = states
    i, f, g, o = raw.chunk(4, dim=1)
    c_new = (torch.sigmoid(f + 1.0 + p['w_cf_l0'] * c) * c
             + torch.sigmoid(i + p['w_ci_l0'] * c) * torch.tanh(g))
    return [torch.sigmoid(o + p['w_co_l0'] * c_new) * torch.tanh(c_new), c_new]


def dense_hh(w_hh, H, heads):
    # the (4 H, H) matrix of the blocks (4 H, H / NH): row r on the columns of its unit's head
    dh = H // heads
    dense = torch.zeros(w_hh.shape[0], H, dtype=w_hh.dtype)
    for r in range(w_hh.shape[0]):
        head = (r % H) // dh
        dense[r, head * dh:(head + 1) * dh] = w_hh[r]
    return dense


def run(cell, t, lengths, heads):
    xs, H = t['xs'], t['h0'].shape[1]
    names = ['h', 'c', 'n', 'm'] if cell == 'slstm' else ['h', 'c']
    states = [t[s + '0'] for s in names]
    w_hh = dense_hh(t['weight_hh_l0'], H, heads)
    hs = []
    for k in range(xs.shape[0]):
        raw = xs[k] @ t['weight_ih_l0'].T + t['bias_ih_l0'] + states[0] @ w_hh.T + t['bias_hh_l0']
        new = slstm_step(raw, states) if cell == 'slstm' else peephole_step(raw, states, t)
        mask = (torch.tensor(lengths) > k).to(xs.dtype).unsqueeze(1)
        states = [mask * a + (1 - mask) * b for a, b in zip(new, states)]
        hs.append(mask * new[0])
    return torch.stack(hs), states, names


def float32_results(cell, out, names, leaves, lengths, heads):
    # PyTorch's own float32 error on the case (the golden rule: ../shared/golden/README.md)
    t = {n: v.float().requires_grad_(n in leaves) for n, v in out.items()}
    hs, final, _ = run(cell, t, lengths, heads)
    loss = (hs * t['r']).sum()
    for s, f in zip(names, final):
        loss = loss + (f * t['s_' + s]).sum()
    grads = torch.autograd.grad(loss, [t[n] for n in leaves])
    got = {'hs': hs.detach()}
    for s, f in zip(names, final):
        got[s + '_n'] = f.detach()
    for n, d in zip(leaves, grads):
        got['d_' + n] = d
    return got


def case(name, cell, T, B, I, H, heads, lengths, initial, seed):
    g = torch.Generator().manual_seed(seed)
    rnd = lambda *s: torch.randn(*s, generator=g)
    G, k = 4, 1 / H ** 0.5
    t = {'xs': rnd(T, B, I),
         'weight_ih_l0': rnd(G * H, I) * k, 'weight_hh_l0': rnd(G * H, H // heads) * k,
         'bias_ih_l0': rnd(G * H) * k, 'bias_hh_l0': rnd(G * H) * k}
    names = ['h', 'c', 'n', 'm'] if cell == 'slstm' else ['h', 'c']
    params = ['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0']
    if cell == 'peephole_lstm':
        for p in ['w_ci_l0', 'w_cf_l0', 'w_co_l0']:
            t[p] = rnd(H) * 0.5
            params.append(p)
    for s in names:
        t[s + '0'] = rnd(B, H) if initial else torch.zeros(B, H)
    if initial and cell == 'slstm':
        t['n0'] = torch.rand(B, H, generator=g) + 0.5  # a normaliser is positive
    leaves = ['xs'] + [s + '0' for s in names] + params
    for n in leaves:
        t[n] = t[n].clone().requires_grad_(True)
    hs, final, _ = run(cell, t, lengths, heads)
    t['r'] = rnd(*hs.shape)
    loss = (hs * t['r']).sum()
    for s, f in zip(names, final):
        t['s_' + s] = rnd(B, H)
        loss = loss + (f * t['s_' + s]).sum()
    grads = torch.autograd.grad(loss, [t[n] for n in leaves])
    out = {n: v.detach() for n, v in t.items()}
    out['hs'] = hs.detach()
    for s, f in zip(names, final):
        out[s + '_n'] = f.detach()
    for n, d in zip(leaves, grads):
        out['d_' + n] = d
    got32 = float32_results(cell, out, names, leaves, lengths, heads)
    error32 = {n: float((got32[n].double() - out[n]).norm() / max(out[n].norm(), 1e-300))
               for n in got32}
    folder = os.path.join(HERE, name)
    os.makedirs(folder, exist_ok=True)
    for n, v in out.items():
        np.save(os.path.join(folder, n + '.npy'), v.numpy())
    with open(os.path.join(folder, 'config.json'), 'w') as f:
        json.dump({'cell': cell, 'T': T, 'B': B, 'I': I, 'H': H, 'heads': heads,
                   'lengths': lengths, 'states': names, 'params': params[4:],
                   'pytorch_float32_error': error32}, f)
        f.write('\n')


if __name__ == '__main__':
    for heads in [1, 2, 4]:
        for initial in [False, True]:
            for ragged in [False, True]:
                name = 'slstm_h%d_%s_%s' % (heads, 'state' if initial else 'zero',
                                            'ragged' if ragged else 'full')
                case(name, 'slstm', 6, 3, 5, 8, heads, [6, 3, 1] if ragged else [6, 6, 6],
                     initial, 100 + 10 * heads + 2 * initial + ragged)
    # unusual shapes: head sizes and H off the vector width, B = 1, T = 1, heads = H
    case('slstm_h3_state_b1', 'slstm', 5, 1, 4, 9, 3, [5], True, 201)
    case('slstm_h2_zero_wide_ragged', 'slstm', 4, 5, 6, 34, 2, [4, 1, 3, 2, 4], False, 202)
    case('slstm_hH_state_t1', 'slstm', 1, 3, 3, 5, 5, [1, 1, 1], True, 203)
    case('slstm_hH_zero_t1_b1', 'slstm', 1, 1, 2, 4, 4, [1], False, 204)
    case('peephole_zero_ragged', 'peephole_lstm', 6, 3, 4, 5, 1, [6, 2, 4], False, 7)
    case('peephole_state_full', 'peephole_lstm', 5, 2, 3, 6, 1, [5, 5], True, 8)
