# The expected bits of spec/arith16_spec.lua: PyTorch's own bfloat16 and float16 ops (each
# computed in float32 and rounded once) on fixed inputs, as 16-bit patterns; the rounding cases
# (ties to even, overflow to inf, subnormal results) on inputs of their own per dtype.
# Written with PyTorch 2.15.0 from PyPI. Debian's 1.13 lacks most float16 CPU ops (exp, tanh,
# softmax, matmul, ...) and is not yet PyTorch's rule in two cases that --check shows: it rounds
# a number operand to the tensor's dtype first (mul_scalar) and its bfloat16 matmul is not
# rounded once; it gives the other cases' bits. Run from the repository root:
#   python3 spec/golden/arith16/make.py > spec/golden/arith16/expected.lua
#   /usr/bin/python3 spec/golden/arith16/make.py --check   (1.13: every case it can compute)
import re, sys
import torch

A = [1.0, -2.5, 3.140625, 0.0078125, 100.0, -0.33203125, 7.0, 0.5]
B = [3.0, 0.75, -1.5, 1.0, 0.00390625, 2.0, -7.0, 1.0]
# Half a unit of the last place at 1: x + y below are exact ties in float32, which round to even.
HALF_ULP = {torch.bfloat16: 2.0 ** -8, torch.float16: 2.0 ** -11}
# Products below the smallest normal: 1e-40 and 2^-127 in bfloat16; 1e-6 and 2^-25 (a tie
# between 0 and the smallest subnormal, to 0) in float16.
TINY = {torch.bfloat16: ([1e-20, 2.0 ** -126], [1e-20, 0.5]),
        torch.float16: ([1e-3, 2.0 ** -24], [1e-3, 0.5])}


def bits(t):
    return [int(b) & 0xffff for b in t.contiguous().view(torch.int16).reshape(-1).tolist()]


def cases(dtype):
    a, b = torch.tensor(A, dtype=dtype), torch.tensor(B, dtype=dtype)
    m = a.reshape(2, 4)
    h = HALF_ULP[dtype]
    tie_x = torch.tensor([1.0, 1.0 + 2 * h, -1.0, 2.0], dtype=dtype)
    tie_y = torch.tensor([h, h, -h, 2 * h], dtype=dtype)
    tiny_x, tiny_y = (torch.tensor(v, dtype=dtype) for v in TINY[dtype])
    return [
        ('add', lambda: a + b), ('sub', lambda: a - b), ('mul', lambda: a * b),
        ('div', lambda: a / b), ('add_scalar', lambda: a + 0.1), ('mul_scalar', lambda: a * 1.1),
        ('pow', lambda: a.abs() ** 0.5), ('exp', lambda: a.exp()), ('tanh', lambda: a.tanh()),
        ('sigmoid', lambda: a.sigmoid()), ('neg', lambda: -a), ('sqrt', lambda: a.abs().sqrt()),
        ('log', lambda: (a.abs() + 1).log()), ('maximum', lambda: torch.maximum(a, b)),
        ('clamp', lambda: a.clamp(-1, 2)), ('sum_dim', lambda: m.sum(1, keepdim=True)),
        ('mean_dim', lambda: m.mean(1, keepdim=True)), ('sum_all', lambda: a.sum()),
        ('cumsum', lambda: a.cumsum(0)), ('softmax', lambda: m.softmax(1)),
        ('logsumexp', lambda: m.logsumexp(1, keepdim=True)),
        ('matmul', lambda: m @ b.reshape(4, 2)), ('sort', lambda: a.sort().values),
        ('big', lambda: torch.tensor([60000.0], dtype=dtype) * 2),
        ('tiny', lambda: torch.tensor([1e-3], dtype=dtype) ** 4),
        ('ties', lambda: tie_x + tie_y),
        ('overflow', lambda: torch.tensor([3e38, -3e38, 65504.0], dtype=dtype) * 2),
        ('subnormal', lambda: tiny_x * tiny_y),
    ]


def computed(dtype):
    """(name, bits) of each case this PyTorch computes; bits None where it lacks the op."""
    for op, f in cases(dtype):
        try:
            t = f()
        except RuntimeError:
            yield op, None
            continue
        assert t.dtype == dtype, (op, t.dtype)
        yield op, bits(t)


DTYPES = ((torch.bfloat16, 'bfloat16'), (torch.float16, 'float16'))

if sys.argv[1:] == ['--check']:
    stored = open('spec/golden/arith16/expected.lua').read()
    for dtype, name in DTYPES:
        section = stored.split('  %s = {' % name)[1].split('\n  },')[0]
        same, lacking, differing = 0, [], []
        for op, got in computed(dtype):
            want = [int(v, 16) for v in re.search(r'\b%s = \{([^}]*)\}' % op, section)[1].split(', ')]
            if got is None:
                lacking.append(op)
            elif got == want:
                same += 1
            else:
                differing.append(op)
        print('PyTorch %s, %s: %d cases the same, different: %s; not computed: %s'
              % (torch.__version__, name, same, differing or 'none', lacking or 'none'))
    sys.exit(0)

print('-- Written by spec/golden/arith16/make.py (PyTorch %s): 16-bit patterns.' % torch.__version__)
print('return {')
print('  a = {%s},' % ', '.join(repr(v) for v in A))
print('  b = {%s},' % ', '.join(repr(v) for v in B))
for dtype, name in DTYPES:
    print('  %s = {' % name)
    for op, got in computed(dtype):
        assert got is not None, op
        print('    %s = {%s},' % (op, ', '.join('0x%04x' % v for v in got)))
    print('  },')
print('}')
