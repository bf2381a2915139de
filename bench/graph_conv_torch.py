# PyTorch's rows for make bench-gc (bench/graph_conv.lua runs it where torch imports): a graph
# convolution relu(A X W + b), forward and backward through autograd, with A sparse
# (torch.sparse.mm(A, X @ W)) and dense (A @ X @ W, as written: (A @ X) @ W), on a random A of
# the same size and number of entries. Arguments: N nnz F O threads(comma-separated) reps.
import sys
import time

import torch

n, nnz, f, o = (int(a) for a in sys.argv[1:5])
threads, reps = [int(t) for t in sys.argv[5].split(',')], int(sys.argv[6])
torch.manual_seed(0)
A = torch.sparse_coo_tensor(torch.randint(0, n, (2, nnz)), torch.rand(nnz), (n, n)).coalesce()
dense = A.to_dense()
X = torch.randn(n, f, requires_grad=True)
W = (torch.randn(f, o) / f ** 0.5).requires_grad_()
b = torch.zeros(o, requires_grad=True)
g = torch.randn(n, o)


def median_ms(step):
    step()
    forward, backward = [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = step()
        t1 = time.perf_counter()
        out.backward(g)
        t2 = time.perf_counter()
        forward.append(t1 - t0)
        backward.append(t2 - t1)
    return sorted(forward)[reps // 2] * 1e3, sorted(backward)[reps // 2] * 1e3


for t in threads:
    torch.set_num_threads(t)
    rows = [('torch.sparse.mm', lambda: torch.relu(torch.sparse.mm(A, X @ W) + b)),
            ('dense A @ X @ W', lambda: torch.relu(dense @ X @ W + b))]
    for name, step in rows:
        fw, bw = median_ms(step)
        print(f'| PyTorch {torch.__version__}, {name} | {t} | {fw:.1f} | {bw:.1f} | {fw + bw:.1f} |')
