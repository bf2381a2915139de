#!/usr/bin/python3
# PyTorch's float16 and bfloat16 values as a safetensors file (half.safetensors, beside this
# script), with each one's exact value in float64: the reference of loading and saving F16 and
# BF16 tensors as float16 and bfloat16 in spec/safetensors_spec.lua. Run from the repository root: spec/golden/half/make.py
# (Debian's python3-torch 1.13; the file is written by hand, as the format lays it out).
import json, os, struct
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
inf, nan = float('inf'), float('nan')
values = {
    # zeros, ordinary, largest, smallest normal, subnormals, rounding, inf, NaN
    'f16': (torch.float16, [0.0, -0.0, 1.0, -2.5, 65504.0, -65504.0, 6.103515625e-05,
                            5.960464477539063e-08, 1e-6, -3e-7, 0.1, 3.14159, inf, -inf, nan]),
    'bf16': (torch.bfloat16, [0.0, -0.0, 1.0, -2.5, 3.3895313892515355e38, 1.1754943508222875e-38,
                              1e-40, -9e-41, 0.1, 3.14159, inf, -inf, nan]),
}
tensors = {}
for name, (dtype, vals) in values.items():
    t = torch.tensor(vals, dtype=torch.float64).to(dtype)
    tensors[name] = ({torch.float16: 'F16', torch.bfloat16: 'BF16'}[dtype], list(t.shape),
                     t.view(torch.int16).numpy().tobytes())
    # A 2-D one too, so that shapes are checked.
    m = torch.arange(-6, 6, dtype=torch.float64).reshape(3, 4).div(7).to(dtype)
    tensors[name + '_matrix'] = (tensors[name][0], [3, 4], m.view(torch.int16).numpy().tobytes())
    for key, ref in ((name, t), (name + '_matrix', m)):
        d = ref.double()
        tensors[key + '_value'] = ('F64', list(d.shape), d.numpy().tobytes())

header, data = {}, b''
for name in sorted(tensors):
    code, shape, raw = tensors[name]
    header[name] = {'dtype': code, 'shape': shape, 'data_offsets': [len(data), len(data) + len(raw)]}
    data += raw
header['__metadata__'] = {'made_by': 'torch ' + torch.__version__}
text = json.dumps(header, sort_keys=True).encode()
text += b' ' * (-len(text) % 8)
with open(os.path.join(HERE, 'half.safetensors'), 'wb') as f:
    f.write(struct.pack('<Q', len(text)) + text + data)
