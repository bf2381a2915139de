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


def compute32(folder, t, dtype):
    # The composed ops of README's formula, h' = (1 - z)·n + z·h: what pytorch_float32_error.json's
    # float32 errors were measured on (nn.GRUCell computes n + z·(h - n), which rounds differently).
    x, h, w_ih, w_hh, b_ih, b_hh = [t[n].to(dtype).requires_grad_()
                                    for n in ('x', 'h', 'w_ih', 'w_hh', 'b_ih', 'b_hh')]
    ir, iz, i_n = (x.mm(w_ih.t()) + b_ih).chunk(3, 1)
    hr, hz, h_n = (h.mm(w_hh.t()) + b_hh).chunk(3, 1)
    r, z = torch.sigmoid(ir + hr), torch.sigmoid(iz + hz)
    n = torch.tanh(i_n + r * h_n)
    new_h = (1 - z) * n + z * h
    d = torch.autograd.grad(new_h, (x, h, w_ih, w_hh, b_ih, b_hh), t['grad_h'].to(dtype))
    return dict(new_h=new_h, d_x=d[0], d_h=d[1], d_w_ih=d[2], d_w_hh=d[3], d_b_ih=d[4], d_b_hh=d[5])


if __name__ == '__main__':
    golden.run('gru_cell', lambda f: INPUTS, compute)
