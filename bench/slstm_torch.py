# PyTorch's side of make bench-slstm (bench/slstm.lua starts it with the python named by
# FUSED_TORCH_PYTHON and talks to it over stdin and stdout, so that the two alternate in one
# run). xLSTM's vanilla sLSTM as NX-AI/xlstm runs it (xlstm/blocks/slstm/src/vanilla:
# slstm_forward's loop over T with its block-diagonal recurrent product over the heads, and
# slstm_forward_pointwise), written out here in float32, with the input projection (one GEMM
# over every step, as xLSTM's layer makes Wx before the loop). First line out: PyTorch's
# version and CPU capability. Then, per line in:
#   threads N         N intra-op threads (the process keeps the CPUs it was started on)
#   step MODE B T H NH ITERS
#                     ITERS training steps (forward from zero states, backward of the sum of
#                     every step's h to the parameters and the input, as fused's step), MODE
#                     'eager' or 'compile' (torch.compile of the step: the recurrent product
#                     and the pointwise step; compiled on the first call, outside the timing),
#                     answered with the ms of one step
import sys
import time

import torch
from torch.nn.functional import logsigmoid


def pointwise(Wx, Ry, b, states):
    # xlstm/blocks/slstm/src/vanilla/slstm.py: slstm_forward_pointwise
    raw = Wx + Ry + b
    y, c, n, m = torch.unbind(states.view(4, states.shape[1], -1), dim=0)
    iraw, fraw, zraw, oraw = torch.unbind(raw.view(raw.shape[0], 4, -1), dim=1)
    logfplusm = m + logsigmoid(fraw)
    if torch.all(n == 0.0):
        mnew = iraw
    else:
        mnew = torch.max(iraw, logfplusm)
    ogate = torch.sigmoid(oraw)
    igate = torch.exp(iraw - mnew)
    fgate = torch.exp(logfplusm - mnew)
    cnew = fgate * c + igate * torch.tanh(zraw)
    nnew = fgate * n + igate
    ynew = ogate * cnew / nnew
    return torch.stack((ynew, cnew, nnew, mnew), dim=0), torch.stack((igate, fgate, zraw, ogate), dim=0)


def step(Wx_t, states, R, b):
    # slstm_forward's loop body: the heads' product, then the pointwise step
    B, NH, Dh = states.shape[1], R.shape[0], R.shape[2]
    Ry = (states[0].reshape(B, NH, 1, -1)
          .matmul(R.transpose(1, 2).reshape(1, NH, Dh, 4 * Dh))
          .reshape(B, NH, 4, -1).transpose(1, 2).reshape(B, -1))
    return pointwise(Wx_t, Ry, b, states)


def slstm_forward(x, states, R, b, step_fn):
    # xlstm/blocks/slstm/src/vanilla/__init__.py: slstm_forward
    S, B, H = x.shape[0], x.shape[1], states.shape[2]
    g = torch.zeros([S + 1, 4, B, H], dtype=x.dtype)
    states_all = torch.zeros([4, S + 1, B, H], dtype=x.dtype)
    states_all[:, 0] = states
    for i, Wx_t in enumerate(x.unbind(dim=0)):
        states, gates = step_fn(Wx_t, states, R, b)
        g[i] = gates
        states_all[:, i + 1] = states
    return states_all, states, g


models = {}
compiled = torch.compile(step)
print(torch.__version__, torch.backends.cpu.get_cpu_capability(), flush=True)
for line in sys.stdin:
    words = line.split()
    if words[0] == 'threads':
        torch.set_num_threads(int(words[1]))
        print('ok', torch.get_num_threads(), flush=True)
        continue
    mode = words[1]
    B, T, H, NH, iters = (int(w) for w in words[2:])
    key = (B, T, H, NH)
    if key not in models:
        torch.manual_seed(0)
        k = H ** -0.5
        models[key] = {'W': (torch.randn(4 * H, H) * k).requires_grad_(),
                       'R': (torch.randn(NH, 4 * (H // NH), H // NH) * k).requires_grad_(),
                       'b': (torch.randn(4 * H) * k).requires_grad_(),
                       'xs': torch.randn(T, B, H, requires_grad=True)}
    p = models[key]
    fn = compiled if mode == 'compile' else step

    def train_step():
        Wx = p['xs'] @ p['W'].T
        states_all, _, _ = slstm_forward(Wx, torch.zeros(4, B, H), p['R'], p['b'], fn)
        states_all[0, 1:].sum().backward()

    if mode == 'compile' and key + (mode,) not in models:
        train_step()  # compiles
        models[key + (mode,)] = True
    t0 = time.perf_counter()
    for _ in range(iters):
        train_step()
    print('%.4f' % ((time.perf_counter() - t0) * 1e3 / iters), flush=True)
