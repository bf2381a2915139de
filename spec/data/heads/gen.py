"""Reference data for spec/heads_spec.lua: multi-head LSTMs and GRUs (heads = NH, a block-diagonal
recurrent matrix, docs/cells.md) made with PyTorch in float64. Run from the repository root:
/work/venv-torch/bin/python spec/data/heads/gen.py (any PyTorch 2.x with numpy).

A multi-head layer is NH separate recurrences, head n an nn.LSTM (nn.GRU) of H/NH units fed by
its own rows of the input projection: head n's weight_ih is the dense weight_ih's rows of its
units in each gate, its weight_hh the n-th diagonal block, its biases the same rows. The data
come from the one equivalent PyTorch module of size H whose weight_hh is the block-diagonal
matrix assembled from the blocks (which runs layers, directions and ragged batches as fused
does), and for every one-layer, one-direction case the generator checks that the NH separate
modules give the same outputs, final states and gradients (float64, 1e-12). The gradient of a
block is the dense gradient at the block's entries.

Per case: config.json (cell, input_size, hidden_size, heads, num_layers, bidirectional, T, B,
lengths or null), the parameters under PyTorch's names in fused's blocks form (weight_hh_l0:
G*H x H/NH, row r the dense row r restricted to its head's columns), xs, h0 (and c0), the
outputs hs, h_n (c_n), the gradients at them d_hs, d_hn (d_cn), and the results d_xs, d_h0
(d_c0) and d_<parameter name>. hs is zero at padded steps, as pad_packed_sequence gives."""
import json
import os

import numpy as np
import torch

torch.set_default_dtype(torch.float64)
HERE = os.path.dirname(os.path.abspath(__file__))
GATES = {"LSTM": 4, "GRU": 3}

CASES = [
    # name, cell, I, H, NH, layers, bidirectional, T, B, lengths
    ("lstm_4heads", "LSTM", 5, 8, 4, 1, False, 6, 3, None),
    ("lstm_2heads", "LSTM", 4, 6, 2, 1, False, 5, 2, None),
    ("lstm_2heads_ragged", "LSTM", 4, 6, 2, 1, False, 5, 3, [5, 2, 4]),
    ("lstm_4heads_stacked_bidirectional_ragged", "LSTM", 3, 8, 4, 2, True, 5, 3, [3, 5, 1]),
    ("gru_4heads", "GRU", 5, 8, 4, 1, False, 6, 3, None),
    ("gru_2heads_ragged", "GRU", 4, 6, 2, 1, False, 5, 3, [1, 5, 3]),
    ("gru_2heads_stacked_bidirectional_ragged", "GRU", 3, 6, 2, 2, True, 4, 3, [4, 2, 3]),
]


def block_mask(G, H, NH):
    """The dense (G*H, H) matrix's entries that the heads keep."""
    Dh = H // NH
    mask = torch.zeros(G * H, H, dtype=torch.bool)
    for r in range(G * H):
        n = (r % H) // Dh
        mask[r, n * Dh:(n + 1) * Dh] = True
    return mask


def blocks(dense, G, H, NH):
    """fused's weight_hh: row r of the dense matrix restricted to its head's columns."""
    return dense[block_mask(G, H, NH)].reshape(G * H, H // NH)


def run(m, xs, states, lengths, d_hs, d_states):
    """Outputs and gradients of module m (float64) with inputs and parameters as leaves."""
    xs = xs.clone().requires_grad_()
    states = [s.clone().requires_grad_() for s in states]
    init = tuple(states) if len(states) == 2 else states[0]
    if lengths is None:
        hs, fin = m(xs, init)
    else:
        packed = torch.nn.utils.rnn.pack_padded_sequence(xs, torch.tensor(lengths),
                                                         enforce_sorted=False)
        out, fin = m(packed, init)
        hs, _ = torch.nn.utils.rnn.pad_packed_sequence(out, total_length=xs.shape[0])
    fin = list(fin) if isinstance(fin, tuple) else [fin]
    loss = (hs * d_hs).sum() + sum((f * d).sum() for f, d in zip(fin, d_states))
    params = dict(m.named_parameters())
    grads = torch.autograd.grad(loss, [xs] + states + list(params.values()))
    return hs, fin, grads[0], list(grads[1:1 + len(states)]), dict(zip(params, grads[1 + len(states):]))


def separate_heads(cell, G, I, H, NH, dense, xs, states, d_hs, d_states):
    """One layer, one direction as NH separate modules of H/NH units: hs, finals, d_xs, d_states
    and d_weight_hh's blocks assembled as fused stores them."""
    Dh = H // NH
    hs, fin, d_xs, d_st = [], [[] for _ in states], 0, [[] for _ in states]
    d_w = {"weight_ih_l0": torch.zeros(G * H, I), "weight_hh_l0": torch.zeros(G * H, Dh),
           "bias_ih_l0": torch.zeros(G * H), "bias_hh_l0": torch.zeros(G * H)}
    for n in range(NH):
        rows = torch.cat([torch.arange(g * H + n * Dh, g * H + (n + 1) * Dh) for g in range(G)])
        m = getattr(torch.nn, cell)(I, Dh)
        with torch.no_grad():
            m.weight_ih_l0.copy_(dense.weight_ih_l0[rows])
            m.weight_hh_l0.copy_(dense.weight_hh_l0[rows][:, n * Dh:(n + 1) * Dh])
            m.bias_ih_l0.copy_(dense.bias_ih_l0[rows])
            m.bias_hh_l0.copy_(dense.bias_hh_l0[rows])
        cols = slice(n * Dh, (n + 1) * Dh)
        h, f, dx, ds, dp = run(m, xs, [s[:, :, cols] for s in states], None, d_hs[:, :, cols],
                               [d[:, :, cols] for d in d_states])
        hs.append(h)
        for i in range(len(states)):
            fin[i].append(f[i])
            d_st[i].append(ds[i])
        d_xs = d_xs + dx
        for name, g in dp.items():
            d_w[name][rows] = g
    return (torch.cat(hs, 2), [torch.cat(f, 2) for f in fin], d_xs,
            [torch.cat(d, 2) for d in d_st], d_w)


def save(folder, name, t):
    np.save(os.path.join(folder, name + ".npy"), t.detach().numpy())


def make(name, cell, I, H, NH, layers, bidirectional, T, B, lengths, seed):
    torch.manual_seed(seed)
    G, D = GATES[cell], 2 if bidirectional else 1
    m = getattr(torch.nn, cell)(I, H, num_layers=layers, bidirectional=bidirectional)
    mask = block_mask(G, H, NH)
    with torch.no_grad():
        for pname, p in m.named_parameters():
            if pname.startswith("weight_hh"):
                p.mul_(mask)  # the block-diagonal matrix: zero off its blocks
    xs = torch.randn(T, B, I)
    n_states = 2 if cell == "LSTM" else 1
    states = [torch.randn(layers * D, B, H) for _ in range(n_states)]
    d_hs = torch.randn(T, B, D * H)
    if lengths is not None:  # a padded step's output is no function of anything
        for b, n in enumerate(lengths):
            d_hs[n:, b] = 0
    d_states = [torch.randn(layers * D, B, H) for _ in range(n_states)]
    hs, fin, d_xs, d_st, d_params = run(m, xs, states, lengths, d_hs, d_states)
    if layers == 1 and not bidirectional and lengths is None:
        s_hs, s_fin, s_dxs, s_dst, s_dp = separate_heads(cell, G, I, H, NH, m, xs, states, d_hs,
                                                         d_states)
        pairs = [(hs, s_hs), (d_xs, s_dxs)] + list(zip(fin, s_fin)) + list(zip(d_st, s_dst))
        pairs.append((blocks(d_params["weight_hh_l0"], G, H, NH), s_dp["weight_hh_l0"]))
        for pname in ("weight_ih_l0", "bias_ih_l0", "bias_hh_l0"):
            pairs.append((d_params[pname], s_dp[pname]))
        worst = max((a - b).abs().max().item() for a, b in pairs)
        assert worst < 1e-12, name
        print(name, "equals", NH, "separate", cell + "s: worst difference", worst, "over",
              len(pairs), "tensors")
    folder = os.path.join(HERE, name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump({"cell": cell, "input_size": I, "hidden_size": H, "heads": NH,
                   "num_layers": layers, "bidirectional": bidirectional, "T": T, "B": B,
                   "lengths": lengths}, f, indent=1)
        f.write("\n")
    for pname, p in m.named_parameters():
        save(folder, pname, blocks(p, G, H, NH) if pname.startswith("weight_hh") else p)
        g = d_params[pname]
        save(folder, "d_" + pname, blocks(g, G, H, NH) if pname.startswith("weight_hh") else g)
    save(folder, "xs", xs)
    save(folder, "hs", hs)
    save(folder, "d_hs", d_hs)
    save(folder, "d_xs", d_xs)
    for i, s in enumerate("hc"[:n_states]):
        save(folder, s + "0", states[i])
        save(folder, s + "_n", fin[i])
        save(folder, "d_" + s + "n", d_states[i])
        save(folder, "d_" + s + "0", d_st[i])


for i, case in enumerate(CASES):
    make(*case, seed=100 + i)
print("wrote", len(CASES), "cases")
