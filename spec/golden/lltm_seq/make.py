#!/usr/bin/python3
# Recomputes lltm_seq/<case> from its inputs with PyTorch in float64: the LLTM step of
# lltm_cell/make.py unrolled over T, L = Σ_t ⟨h_t, r_t⟩ + ⟨c_T, s⟩, autograd through the ops.
# Run from anywhere: spec/golden/lltm_seq/make.py [--check]
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lltm_cell'))
import torch
import golden
from make import step

INPUTS = ['xs', 'h0', 'c0', 'W', 'b', 'r', 's']


def compute(folder, t, dtype):
    xs, h0, c0, W, b = [t[n].to(dtype).requires_grad_() for n in ('xs', 'h0', 'c0', 'W', 'b')]
    r, s = t['r'].to(dtype), t['s'].to(dtype)
    h, c, hs = h0, c0, []
    for k in range(xs.shape[0]):
        h, c = step(xs[k], h, c, W, b)
        hs.append(h)
    hs = torch.stack(hs)
    loss = (hs * r).sum() + (c * s).sum()
    d = torch.autograd.grad(loss, (xs, h0, c0, W, b))
    return dict(hs=hs, c_T=c, loss=loss.reshape(1), d_xs=d[0], d_h0=d[1], d_c0=d[2], d_W=d[3], d_b=d[4])


if __name__ == '__main__':
    golden.run('lltm_seq', lambda f: INPUTS, compute)
