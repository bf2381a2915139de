# lstm_seq/make.py and gru_seq/make.py: PyTorch's own nn.LSTM / nn.GRU over a padded batch
# (packed with pack_padded_sequence, enforce_sorted=False), L = Σ⟨hs, r⟩ + ⟨h_n, s_h⟩
# (+ ⟨c_n, s_c⟩), its value and gradients, from the case folder's config.json and inputs.
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
import golden


def names(cfg):
    out = []
    for layer in range(cfg['num_layers']):
        for sfx in ([''] + (['_reverse'] if cfg['bidirectional'] else [])):
            for kind in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh'):
                out.append('%s_l%d%s' % (kind, layer, sfx))
    return out


def functions(lstm):
    # (inputs(folder), compute(folder, tensors, dtype)) for golden.run and precision_error.py.
    states = ['h0', 'c0'] if lstm else ['h0']
    sums = ['s_h', 's_c'] if lstm else ['s_h']

    def inputs(folder):
        return ['xs', 'lengths', 'r'] + states + sums + names(golden.config(folder))

    def compute(folder, t, dtype):
        cfg = golden.config(folder)
        mod = (torch.nn.LSTM if lstm else torch.nn.GRU)(
            cfg['input_size'], cfg['hidden_size'], num_layers=cfg['num_layers'],
            bidirectional=cfg['bidirectional']).to(dtype)
        with torch.no_grad():
            for n in names(cfg):
                getattr(mod, n).copy_(t[n])
        xs = t['xs'].to(dtype).requires_grad_()
        st = [t[n].to(dtype).requires_grad_() for n in states]
        lengths = t['lengths'].to(torch.int64)
        packed = pack_padded_sequence(xs, lengths, enforce_sorted=False)
        out, hn = mod(packed, tuple(st) if lstm else st[0])
        hs, _ = pad_packed_sequence(out, total_length=xs.shape[0])
        finals = list(hn) if lstm else [hn]
        loss = (hs * t['r'].to(dtype)).sum()
        for f, s in zip(finals, sums):
            loss = loss + (f * t[s].to(dtype)).sum()
        params = [getattr(mod, n) for n in names(cfg)]
        d = torch.autograd.grad(loss, [xs] + st + params)
        res = dict(hs=hs, loss=loss.reshape(1), d_xs=d[0])
        for i, n in enumerate(['h_n', 'c_n'][:len(finals)]):
            res[n] = finals[i]
        for i, n in enumerate(states):
            res['d_' + n] = d[1 + i]
        for i, n in enumerate(names(cfg)):
            res['d_' + n] = d[1 + len(st) + i]
        return res

    return inputs, compute


def make(setname, lstm):
    golden.run(setname, *functions(lstm))
