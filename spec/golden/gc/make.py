#!/usr/bin/python3
# Recomputes gc/<case> from its inputs with PyTorch in float64: out = A·X·W + b, autograd through
# the ops (A not differentiated). Run from anywhere: spec/golden/gc/make.py [--check]
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import torch
import golden

INPUTS = ['A', 'X', 'W', 'b', 'grad_out']


def compute(folder, t, dtype):
    A = t['A'].to(dtype)
    X, W, b = [t[n].to(dtype).requires_grad_() for n in ('X', 'W', 'b')]
    out = A.mm(X).mm(W) + b
    d = torch.autograd.grad(out, (X, W, b), t['grad_out'].to(dtype))
    return dict(out=out, d_X=d[0], d_W=d[1], d_b=d[2])


if __name__ == '__main__':
    golden.run('gc', lambda f: INPUTS, compute)
