#!/work/venv-torch/bin/python
# A causal self-attention block (PyTorch's nn.MultiheadAttention with a causal attn_mask, a
# residual, nn.LayerNorm) trained 5 SGD steps on an MSE loss in float64: the reference of
# spec/autograd_attention_spec.lua, whose block is written in Lua from fused's ops with a
# forward only. Run from the repository root: spec/golden/attention/make.py. Writes, beside
# this script, reference.safetensors:
#   <name>          the initial state_dict (attn.in_proj_weight, ..., norm.bias)
#   x, target       B x T x D
#   losses          each step's loss
#   grad.<name>     each step's gradient, stacked (steps x shape); grad.x the input's
import json, os, struct
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
B, T, D, HEADS, STEPS, LR = 2, 5, 8, 2, 5, 0.05


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(D, HEADS, batch_first=True)
        self.norm = nn.LayerNorm(D)

    def forward(self, x):
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)  # True: masked
        a, _ = self.attn(x, x, x, attn_mask=causal, need_weights=False)
        return self.norm(x + a)


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
block = Block().double()
with torch.no_grad():  # biases and LayerNorm's affine away from PyTorch's zeros and ones
    for p in (block.attn.in_proj_bias, block.attn.out_proj.bias, block.norm.bias):
        p.uniform_(-0.5, 0.5)
    block.norm.weight.uniform_(0.5, 1.5)
init = {k: v.clone() for k, v in block.state_dict().items()}
x = torch.randn(B, T, D, dtype=torch.float64)
target = torch.randn(B, T, D, dtype=torch.float64)
losses, grads = [], {n: [] for n, _ in block.named_parameters()}
grads['x'] = []
for step in range(STEPS):
    block.zero_grad()
    xs = x.clone().requires_grad_()
    loss = F.mse_loss(block(xs), target)
    loss.backward()
    losses.append(loss.item())
    for n, p in block.named_parameters():
        grads[n].append(p.grad.clone())
    grads['x'].append(xs.grad.clone())
    with torch.no_grad():
        for p in block.parameters():
            p.add_(p.grad, alpha=-LR)
out = dict(init, x=x, target=target, losses=torch.tensor(losses, dtype=torch.float64))
for n, g in grads.items():
    out['grad.' + n] = torch.stack(g)
save_safetensors(os.path.join(HERE, 'reference.safetensors'), out)
print('losses', losses, 'torch', torch.__version__)
