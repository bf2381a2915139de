#!/usr/bin/python3
# Recomputes lstm_cell/<case> from its inputs with PyTorch's own nn.LSTMCell in float64.
# Run from anywhere: spec/golden/lstm_cell/make.py [--check]
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import torch
import golden

INPUTS = ['x', 'h', 'c', 'w_ih', 'w_hh', 'b_ih', 'b_hh', 'grad_h', 'grad_c']


def compute(folder, t, dtype):
    I, H = t['w_ih'].shape[1], t['w_hh'].shape[1]
    cell = torch.nn.LSTMCell(I, H).to(dtype)
    with torch.no_grad():
        for n in ('w_ih', 'w_hh', 'b_ih', 'b_hh'):
            getattr(cell, 'weight_' + n[2:] if n[0] == 'w' else 'bias_' + n[2:]).copy_(t[n])
    x, h, c = [t[n].to(dtype).requires_grad_() for n in ('x', 'h', 'c')]
    new_h, new_c = cell(x, (h, c))
    params = (cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)
    d = torch.autograd.grad((new_h, new_c), (x, h, c) + params, (t['grad_h'].to(dtype), t['grad_c'].to(dtype)))
    return dict(new_h=new_h, new_c=new_c, d_x=d[0], d_h=d[1], d_c=d[2],
                d_w_ih=d[3], d_w_hh=d[4], d_b_ih=d[5], d_b_hh=d[6])


def compute32(folder, t, dtype):
    # The composed ops of README's formula, left to right: what pytorch_float32_error.json's
    # float32 errors were measured on (nn.LSTMCell's addmm rounds differently in float32).
    x, h, c, w_ih, w_hh, b_ih, b_hh = [t[n].to(dtype).requires_grad_()
                                       for n in ('x', 'h', 'c', 'w_ih', 'w_hh', 'b_ih', 'b_hh')]
    gates = x.mm(w_ih.t()) + b_ih + h.mm(w_hh.t()) + b_hh
    i, f, g, o = gates.chunk(4, 1)
    new_c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    new_h = torch.sigmoid(o) * torch.tanh(new_c)
    d = torch.autograd.grad((new_h, new_c), (x, h, c, w_ih, w_hh, b_ih, b_hh),
                            (t['grad_h'].to(dtype), t['grad_c'].to(dtype)))
    return dict(new_h=new_h, new_c=new_c, d_x=d[0], d_h=d[1], d_c=d[2],
                d_w_ih=d[3], d_w_hh=d[4], d_b_ih=d[5], d_b_hh=d[6])


if __name__ == '__main__':
    golden.run('lstm_cell', lambda f: INPUTS, compute)
