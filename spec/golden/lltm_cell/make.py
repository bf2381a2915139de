#!/usr/bin/python3
# Recomputes lltm_cell/<case>'s outputs and gradients from its inputs with PyTorch in float64,
# autograd through the composed ops (README: X = [h, x]; gates i, o sigmoid, candidate ELU).
# Run from anywhere: spec/golden/lltm_cell/make.py [--check]
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import torch
import torch.nn.functional as F
import golden

INPUTS = ['x', 'h', 'c', 'W', 'b', 'grad_h', 'grad_c']


def step(x, h, c, W, b):
    gates = torch.cat([h, x], 1).mm(W.t()) + b
    i, o, g = gates.chunk(3, 1)
    new_c = c + F.elu(g, 1.0) * torch.sigmoid(i)
    return torch.tanh(new_c) * torch.sigmoid(o), new_c


def compute(folder, t, dtype):
    x, h, c, W, b = [t[n].to(dtype).requires_grad_() for n in ('x', 'h', 'c', 'W', 'b')]
    new_h, new_c = step(x, h, c, W, b)
    d = torch.autograd.grad((new_h, new_c), (x, h, c, W, b), (t['grad_h'].to(dtype), t['grad_c'].to(dtype)))
    return dict(new_h=new_h, new_c=new_c, d_x=d[0], d_h=d[1], d_c=d[2], d_W=d[3], d_b=d[4])


if __name__ == '__main__':
    golden.run('lltm_cell', lambda f: INPUTS, compute)
