# PyTorch (float64) references for spec/th_nn_spec.lua's criterions, which follow Torch7's nn:
# ClassNLLCriterion = nll_loss, CrossEntropyCriterion = cross_entropy (weights: divided by the
# picked weights' sum when averaging), MSECriterion = mse_loss, BCECriterion = binary
# cross-entropy (Torch7 adds eps = 1e-12 inside the logs: written out here). Run with
# /work/venv-torch/bin/python gen.py; writes the .npy files beside it.
import numpy as np
import torch

torch.manual_seed(7)
x = torch.randn(4, 5, dtype=torch.float64)
target = torch.tensor([2, 5, 1, 5]) - 1  # Torch7's classes count from 1
weights = torch.tensor([0.5, 1.0, 2.0, 1.5, 0.25], dtype=torch.float64)
p = torch.rand(4, 5, dtype=torch.float64) * 0.9 + 0.05
t = (torch.rand(4, 5, dtype=torch.float64) > 0.5).to(torch.float64)
y = torch.randn(4, 5, dtype=torch.float64)
eps = 1e-12


def grad_of(fn, inp):
    inp = inp.clone().requires_grad_(True)
    loss = fn(inp)
    loss.backward()
    return loss.item(), inp.grad.numpy()


def bce(weighted, average):
    def fn(q):
        terms = t * torch.log(q + eps) + (1 - t) * torch.log(1 - q + eps)
        if weighted:
            terms = terms * weights
        s = -terms.sum()
        return s / q.numel() if average else s
    return fn


cases = {
    'nll': lambda v: torch.nn.functional.nll_loss(v, target),
    'nll_sum': lambda v: torch.nn.functional.nll_loss(v, target, reduction='sum'),
    'nll_weights': lambda v: torch.nn.functional.nll_loss(v, target, weight=weights),
    'ce': lambda v: torch.nn.functional.cross_entropy(v, target),
    'ce_weights': lambda v: torch.nn.functional.cross_entropy(v, target, weight=weights),
}
out = {'x': x.numpy(), 'target': (target + 1).to(torch.float64).numpy(), 'weights': weights.numpy(),
       'p': p.numpy(), 't': t.numpy(), 'y': y.numpy()}
for name, fn in cases.items():
    loss, g = grad_of(fn, x)
    out[name + '_loss'], out[name + '_grad'] = np.array(loss), g
for name, fn, inp in [('mse', lambda v: torch.nn.functional.mse_loss(v, y), x),
                      ('mse_sum', lambda v: torch.nn.functional.mse_loss(v, y, reduction='sum'), x),
                      ('bce', bce(False, True), p), ('bce_weights_sum', bce(True, False), p)]:
    loss, g = grad_of(fn, inp)
    out[name + '_loss'], out[name + '_grad'] = np.array(loss), g
for name, arr in out.items():
    np.save(name + '.npy', np.asarray(arr, dtype=np.float64))
