#!/usr/bin/python3
# A two-layer LSTM language model trained by PyTorch for 100 Adam steps, in float64 and in
# float32, from one initialisation: the reference of spec/port_golden_spec.lua, which trains
# the same model ported to fused from init.safetensors and compares the losses. Run from the
# repository root: spec/golden/port/make.py (Debian's python3-torch 1.13). Writes, beside this
# script, init.safetensors (the state_dict under PyTorch's names, float64; the batches as I64,
# tokens counted from 0) and losses.json (the loss before each step, per dtype).
import json, os, struct
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
V, E, H, LAYERS, T, B, BATCHES, STEPS, LR = 11, 8, 16, 2, 7, 5, 4, 100, 1e-2


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(V, E)
        self.lstm = nn.LSTM(E, H, num_layers=LAYERS)
        self.head = nn.Linear(H, V)

    def forward(self, x):  # x: T x B tokens
        hs, _ = self.lstm(self.embed(x))
        return self.head(hs)


def train(init, xs, ys, dtype):
    model = LM().to(dtype)
    model.load_state_dict({k: v.to(dtype) for k, v in init.items()})
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    losses = []
    for step in range(STEPS):
        b = step % BATCHES
        loss = F.cross_entropy(model(xs[b]).reshape(-1, V), ys[b].reshape(-1))
        losses.append(loss.item())
        opt.zero_grad()
        loss.backward()
        opt.step()
    return losses


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


torch.manual_seed(0)
init = {k: v.double() for k, v in LM().state_dict().items()}
# Inputs exact in float32, so that both dtypes start from the same values.
init = {k: v.float().double() for k, v in init.items()}
stream = torch.randint(0, V, (BATCHES, T + 1, B))
xs, ys = stream[:, :T], stream[:, 1:]
save_safetensors(os.path.join(HERE, 'init.safetensors'), dict(init, xs=xs, ys=ys))
out = {'config': {'vocab': V, 'embed': E, 'hidden': H, 'layers': LAYERS, 'T': T, 'B': B,
                  'batches': BATCHES, 'steps': STEPS, 'lr': LR, 'torch': torch.__version__},
       'float64': train(init, xs, ys, torch.float64),
       'float32': train(init, xs, ys, torch.float32)}
with open(os.path.join(HERE, 'losses.json'), 'w') as f:
    json.dump(out, f, indent=1)
    f.write('\n')
