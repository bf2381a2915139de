# The expected bits of spec/arith16_spec.lua: PyTorch's own bfloat16 and float16 ops (each
# computed in float32 and rounded once) on fixed inputs, as 16-bit patterns.
# Needs PyTorch 2 (1.13 lacks most float16 CPU ops); written with 2.15.0 from PyPI. Run:
#   python3 spec/golden/arith16/make.py > spec/golden/arith16/expected.lua
import torch

A = [1.0, -2.5, 3.140625, 0.0078125, 100.0, -0.33203125, 7.0, 0.5]
B = [3.0, 0.75, -1.5, 1.0, 0.00390625, 2.0, -7.0, 1.0]


def bits(t):
    return [int(b) & 0xffff for b in t.contiguous().view(torch.int16).reshape(-1).tolist()]


def cases(dtype):
    a, b = torch.tensor(A, dtype=dtype), torch.tensor(B, dtype=dtype)
    m = a.reshape(2, 4)
    return [
        ('add', a + b), ('sub', a - b), ('mul', a * b), ('div', a / b),
        ('add_scalar', a + 0.1), ('mul_scalar', a * 1.1), ('pow', a.abs() ** 0.5),
        ('exp', a.exp()), ('tanh', a.tanh()), ('sigmoid', a.sigmoid()), ('neg', -a),
        ('sqrt', a.abs().sqrt()), ('log', (a.abs() + 1).log()),
        ('maximum', torch.maximum(a, b)), ('clamp', a.clamp(-1, 2)),
        ('sum_dim', m.sum(1, keepdim=True)), ('mean_dim', m.mean(1, keepdim=True)),
        ('cumsum', a.cumsum(0)), ('softmax', m.softmax(1)), ('logsumexp', m.logsumexp(1, keepdim=True)),
        ('matmul', m @ b.reshape(4, 2)), ('sort', a.sort().values),
        ('big', torch.tensor([60000.0], dtype=dtype) * 2), ('tiny', torch.tensor([1e-3], dtype=dtype) ** 4),
    ]


print('-- Written by spec/golden/arith16/make.py (PyTorch %s): 16-bit patterns.' % torch.__version__)
print('return {')
print('  a = {%s},' % ', '.join(repr(v) for v in A))
print('  b = {%s},' % ', '.join(repr(v) for v in B))
for dtype, name in ((torch.bfloat16, 'bfloat16'), (torch.float16, 'float16')):
    print('  %s = {' % name)
    for op, t in cases(dtype):
        assert t.dtype == dtype, (op, t.dtype)
        print('    %s = {%s},' % (op, ', '.join('0x%04x' % v for v in bits(t))))
    print('  },')
print('}')
