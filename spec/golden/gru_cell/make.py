#!/usr/bin/python3
# Recomputes gru_cell/<case> from its inputs with PyTorch's own nn.GRUCell in float64.
# Run from anywhere: spec/golden/gru_cell/make.py [--check]
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import torch
import golden

INPUTS = ['x', 'h', 'w_ih', 'w_hh', 'b_ih', 'b_hh', 'grad_h']


def compute(folder, t, dtype):
    I, H = t['w_ih'].shape[1], t['w_hh'].shape[1]
    cell = torch.nn.GRUCell(I, H).to(dtype)
    with torch.no_grad():
        for n in ('w_ih', 'w_hh', 'b_ih', 'b_hh'):
            getattr(cell, 'weight_' + n[2:] if n[0] == 'w' else 'bias_' + n[2:]).copy_(t[n])
    x, h = [t[n].to(dtype).requires_grad_() for n in ('x', 'h')]
    new_h = cell(x, h)
    params = (cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)
    d = torch.autograd.grad(new_h, (x, h) + params, t['grad_h'].to(dtype))
    return dict(new_h=new_h, d_x=d[0], d_h=d[1], d_w_ih=d[2], d_w_hh=d[3], d_b_ih=d[4], d_b_hh=d[5])


if __name__ == '__main__':
    golden.run('gru_cell', lambda f: INPUTS, compute)
