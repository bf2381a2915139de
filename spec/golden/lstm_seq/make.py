#!/usr/bin/python3
# Recomputes lstm_seq/<case> from its config.json and inputs with PyTorch's own nn.LSTM in float64
# (spec/golden/seq_common.py). Run from anywhere: spec/golden/lstm_seq/make.py [--check]
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import seq_common

INPUTS, compute = seq_common.functions(lstm=True)

if __name__ == '__main__':
    seq_common.make('lstm_seq', lstm=True)
