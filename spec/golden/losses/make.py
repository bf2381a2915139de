#!/usr/bin/python3
# PyTorch's own CrossEntropyLoss and NLLLoss in float64: the references of
# spec/losses_golden_spec.lua. Run from the repository root: spec/golden/losses/make.py
# (Debian's python3-torch 1.13). Writes beside this script, per layout L:
#   L_logits (the input), L_targets (class indices counted from 1 as fused counts, in float64
#   as every golden file), L_targets_ignored (the same with every third -100, for the
#   ignore_index cases), L_d_loss (the gradient arriving at a reduction = 'none' loss),
# and per layout and case C: L_C_loss (1 element, or the targets' shape for 'none') and
# L_C_grad (the gradient to the input; for 'none', of sum(loss * d_loss)). The NLL cases take
# log_softmax(L_logits) as their input.
import os
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
LAYOUTS = {'rows': ((7, 5), (7,)), 'image': ((2, 4, 3, 2), (2, 3, 2)), 'seq': ((3, 4, 5), (3, 5))}
CASES = {
    'ce_mean': ('ce', {}),
    'ce_sum': ('ce', {'reduction': 'sum'}),
    'ce_none': ('ce', {'reduction': 'none'}),
    'ce_ignore': ('ce', {'ignore_index': -100}),
    'ce_smooth': ('ce', {'label_smoothing': 0.2}),
    'ce_smooth_ignore_sum': ('ce', {'label_smoothing': 0.3, 'ignore_index': -100, 'reduction': 'sum'}),
    'ce_smooth_ignore_none': ('ce', {'label_smoothing': 0.1, 'ignore_index': -100, 'reduction': 'none'}),
    'nll_mean': ('nll', {}),
    'nll_sum': ('nll', {'reduction': 'sum'}),
    'nll_ignore_none': ('nll', {'ignore_index': -100, 'reduction': 'none'}),
    'nll_ignore': ('nll', {'ignore_index': -100}),
}

def save(name, t):
    np.save(os.path.join(HERE, name + '.npy'), t.detach().to(torch.float64).numpy())

torch.manual_seed(0)
for layout, (shape, tshape) in LAYOUTS.items():
    logits = torch.randn(*shape, dtype=torch.float64) * 3
    logits.view(-1)[1] = 1000  # exp would overflow without the max subtracted
    logits.view(-1)[2] = -1000
    classes = shape[1]
    targets = torch.randint(0, classes, tshape)
    ignored = targets.clone()
    ignored.view(-1)[::3] = -100
    d_loss = torch.randn(*tshape, dtype=torch.float64)
    save(layout + '_logits', logits)
    save(layout + '_targets', targets + 1)
    save(layout + '_targets_ignored', torch.where(ignored == -100, ignored, ignored + 1))
    save(layout + '_d_loss', d_loss)
    for case, (kind, opts) in CASES.items():
        x = logits.clone().requires_grad_()
        t = ignored if 'ignore_index' in opts else targets
        if kind == 'ce':
            loss = torch.nn.CrossEntropyLoss(**opts)(x, t)
        else:
            loss = torch.nn.NLLLoss(**opts)(torch.log_softmax(x, 1), t)
        (loss * d_loss if opts.get('reduction') == 'none' else loss).sum().backward()
        grad = x.grad if kind == 'ce' else None
        if kind == 'nll':  # the gradient to NLLLoss's own input, the log-probabilities
            lp = torch.log_softmax(logits, 1).detach().requires_grad_()
            l2 = torch.nn.NLLLoss(**opts)(lp, t)
            (l2 * d_loss if opts.get('reduction') == 'none' else l2).sum().backward()
            grad = lp.grad
        save(layout + '_' + case + '_loss', loss.reshape(-1) if loss.dim() == 0 else loss)
        save(layout + '_' + case + '_grad', grad)
