#!/work/venv-torch/bin/python
# PyTorch's examples/word_language_model (RNNModel, LSTM, tied weights; main.py's train loop:
# NLLLoss over log_softmax, clip_grad_norm_, p -= lr grad) run 20 steps in float64: the
# reference of spec/autograd_word_lm_spec.lua, whose model (spec/golden/word_lm/train.lua) has
# a forward only. Run from the repository root: spec/golden/word_lm/make.py. Writes, beside
# this script, reference.safetensors:
#   <name>        the initial state_dict (PyTorch's init_weights; both tied keys)
#   data          the token stream, batchified (rows x B, I64, from 0)
#   losses, norms each step's loss and total gradient norm (before clipping)
#   grad.<name>   each step's clipped gradient, stacked (steps x shape), under named_parameters'
#                 names (the tied weight once, as encoder.weight)
#   final.<name>  the parameters after the 20 updates
# Dropout: p = 0 on both sides here (PyTorch's and fused's generators draw different masks);
# the spec checks the dropout masks apart, against central differences with p = 0.5.
#
# spec/golden/word_lm/make.py check: trains fused's model (train.lua) on this reference,
# saves its state_dict with fused.save, loads that file into PyTorch's RNNModel and compares
# its parameters and its loss on the first batch with PyTorch's own after 20 steps; records
# what it found in checkpoint_check.json.
import json, os, struct, subprocess, sys, tempfile
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, 'reference.safetensors')
NTOKEN, NINP, NHID, NLAYERS, DROPOUT = 13, 8, 8, 2, 0.0
BPTT, BATCH, STEPS, LR, CLIP = 5, 3, 20, 0.5, 0.25


class RNNModel(nn.Module):  # examples/word_language_model/model.py, the LSTM case
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout, tie_weights):
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            self.decoder.weight = self.encoder.weight
        self.init_weights()
        self.nhid, self.nlayers = nhid, nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid))


def get_batch(source, i):  # main.py's
    seq_len = min(BPTT, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


def save_safetensors(path, tensors):
    codes = {torch.float64: 'F64', torch.int64: 'I64'}
    header, data = {}, b''
    for name in sorted(tensors):
        t = tensors[name].contiguous()
        raw = t.numpy().tobytes()
        header[name] = {'dtype': codes[t.dtype], 'shape': list(t.shape),
                        'data_offsets': [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, sort_keys=True).encode()
    text += b' ' * (-len(text) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(text)) + text + data)


def load_safetensors(path):
    import numpy as np
    kinds = {'F64': np.float64, 'F32': np.float32, 'I64': np.int64}
    with open(path, 'rb') as f:
        raw = f.read()
    n = struct.unpack('<Q', raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, e in header.items():
        if name == '__metadata__':
            continue
        a, b = e['data_offsets']
        arr = np.frombuffer(raw[8 + n + a:8 + n + b], dtype=kinds[e['dtype']]).reshape(e['shape'])
        out[name] = torch.from_numpy(arr.copy())
    return out


def model_from(state):
    model = RNNModel(NTOKEN, NINP, NHID, NLAYERS, DROPOUT, True).double()
    missing, unexpected = model.load_state_dict(state, strict=False)
    return model, missing, unexpected


def make():
    torch.manual_seed(0)
    model = RNNModel(NTOKEN, NINP, NHID, NLAYERS, DROPOUT, True).double()
    init = {k: v.clone() for k, v in model.state_dict().items()}
    data = torch.randint(0, NTOKEN, (STEPS * BPTT + 1, BATCH))
    criterion = nn.NLLLoss()
    model.train()
    hidden = model.init_hidden(BATCH)
    losses, norms, grads = [], [], {n: [] for n, _ in model.named_parameters()}
    for step, i in enumerate(range(0, data.size(0) - 1, BPTT)):
        x, targets = get_batch(data, i)
        model.zero_grad()
        hidden = tuple(h.detach() for h in hidden)
        output, hidden = model(x, hidden)
        loss = criterion(output, targets)
        loss.backward()
        norms.append(float(torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)))
        losses.append(loss.item())
        for n, p in model.named_parameters():
            grads[n].append(p.grad.clone())
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-LR)
    assert len(losses) == STEPS
    out = dict(init, data=data, losses=torch.tensor(losses, dtype=torch.float64),
               norms=torch.tensor(norms, dtype=torch.float64))
    for n, g in grads.items():
        out['grad.' + n] = torch.stack(g)
    for n, p in model.state_dict().items():
        out['final.' + n] = p.clone()
    save_safetensors(REFERENCE, out)
    print('steps', STEPS, 'losses', losses[0], '->', losses[-1], 'clipped', sum(n > CLIP for n in norms))


def check():
    ref = load_safetensors(REFERENCE)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'fused.safetensors')
        lua = ("local fused = require 'fused'; local r = dofile('spec/golden/word_lm/train.lua').train("
               "'spec/golden/word_lm/'); fused.save(arg[1], r.model:state_dict())")
        env = dict(os.environ, LUA_PATH='lua/?.lua;lua/?/init.lua;;')
        subprocess.run(['luajit', '-e', 'arg = {[1] = ' + json.dumps(path) + '}; ' + lua], check=True, env=env)
        saved = load_safetensors(path)
    model, missing, unexpected = model_from(saved)
    worst = 0.0
    for n, p in model.state_dict().items():
        worst = max(worst, (p - ref['final.' + n]).abs().max().item())
    x, targets = get_batch(ref['data'], 0)
    model.eval()
    with torch.no_grad():
        output, _ = model(x, model.init_hidden(BATCH))
        loss = F.nll_loss(output, targets).item()
        theirs, _, _ = model_from({n[len('final.'):]: v for n, v in ref.items() if n.startswith('final.')})
        theirs.eval()
        want = F.nll_loss(theirs(x, theirs.init_hidden(BATCH))[0], targets).item()
    record = json.dumps({'keys in fused\'s file': sorted(saved), 'missing (tied)': missing,
                      'unexpected': unexpected,
                      'largest parameter difference after 20 steps': worst,
                      'loss on batch 1, fused\'s checkpoint in PyTorch': loss,
                      'loss on batch 1, PyTorch\'s own': want, 'torch': torch.__version__}, indent=1)
    print(record)
    with open(os.path.join(HERE, 'checkpoint_check.json'), 'w') as f:
        f.write(record + '\n')
    assert missing == ['encoder.weight'] and not unexpected, (missing, unexpected)
    assert worst <= 1e-12 and abs(loss - want) <= 1e-12, (worst, loss, want)
    print('fused\'s checkpoint loads into PyTorch: OK')


if __name__ == '__main__':
    check() if sys.argv[1:] == ['check'] else make()
