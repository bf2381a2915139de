#!/usr/bin/python3
# PyTorch's own optimizers, 100 steps on a small model, in float32 and float64: the references
# of spec/optim_golden_spec.lua. Run from the repository root: spec/golden/optim/make.py (Debian's
# python3-torch 1.13). Writes model/ (the inputs) and one folder per case beside this script.
#
# The model: parameters p1 (5x4) and p2 (7); the gradient of each is a * (p - c), computed in
# the parameter's dtype (the gradient of 0.5 * sum(a * (p - c)^2)), so that the two sides
# differ only in the optimizer.
import json, os
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = 100
CASES = {
    'sgd': ('SGD', {'lr': 0.05}),
    'sgd_momentum': ('SGD', {'lr': 0.05, 'momentum': 0.9, 'weight_decay': 0.01}),
    'sgd_dampening': ('SGD', {'lr': 0.05, 'momentum': 0.9, 'dampening': 0.1}),
    'sgd_nesterov': ('SGD', {'lr': 0.05, 'momentum': 0.9, 'nesterov': True}),
    'adam': ('Adam', {'lr': 0.01}),
    'adam_weight_decay': ('Adam', {'lr': 0.01, 'betas': (0.8, 0.99), 'weight_decay': 0.01}),
    'adamw': ('AdamW', {'lr': 0.01, 'weight_decay': 0.05}),
    'rmsprop': ('RMSprop', {'lr': 0.01}),
    'rmsprop_momentum': ('RMSprop', {'lr': 0.002, 'alpha': 0.9, 'momentum': 0.5,
                                     'weight_decay': 0.01}),
}

def save(folder, name, t):
    np.save(os.path.join(folder, name + '.npy'), t.detach().to(torch.float64).numpy())

def run(cls, opts, init, a, c, dtype):
    params = [p.to(dtype).clone().requires_grad_() for p in init]
    opt = getattr(torch.optim, cls)(params, **opts)
    for _ in range(STEPS):
        with torch.no_grad():
            for p, ai, ci in zip(params, a, c):
                p.grad = ai.to(dtype) * (p - ci.to(dtype))
        opt.step()
    return params

torch.manual_seed(0)
init = [torch.randn(5, 4, dtype=torch.float64), torch.randn(7, dtype=torch.float64)]
a = [torch.rand(5, 4, dtype=torch.float64) * 1.5 + 0.5, torch.rand(7, dtype=torch.float64) + 0.5]
c = [torch.randn(5, 4, dtype=torch.float64), torch.randn(7, dtype=torch.float64)]
# Inputs exact in float32, so that both dtypes start from the same values.
init, a, c = [[t.float().double() for t in ts] for ts in (init, a, c)]
model = os.path.join(HERE, 'model')
os.makedirs(model, exist_ok=True)
for i in range(2):
    for name, ts in (('init', init), ('a', a), ('c', c)):
        save(model, '%s%d' % (name, i + 1), ts[i])
for case, (cls, opts) in CASES.items():
    folder = os.path.join(HERE, case)
    os.makedirs(folder, exist_ok=True)
    for dtype, tag in ((torch.float32, 'float32'), (torch.float64, 'float64')):
        for i, p in enumerate(run(cls, opts, init, a, c, dtype)):
            save(folder, 'p%d_%s' % (i + 1, tag), p)
    with open(os.path.join(folder, 'config.json'), 'w') as f:
        json.dump({'optimizer': cls, 'options': opts, 'steps': STEPS,
                   'torch': torch.__version__}, f, indent=1, sort_keys=True)
        f.write('\n')
