# The expected bits of spec/dtype16_spec.lua: float32 values through PyTorch's conversions to
# bfloat16 and float16 (round to nearest even), and back. Run: python3 spec/golden/dtype16/make.py
import struct, torch
cases = [0.0, -0.0, 1.0, -2.5, 1.00390625, 1.01171875, 1.0048828125, 3.14159265, 65504.0, 65519.0,
         65520.0, 1e5, 3.4e38, 5.96e-8, 2.98e-8, 2.99e-8, 6.1e-5, 1e-40, 9.2e-41,
         float('inf'), float('-inf'), float('nan')]
x = torch.tensor(cases, dtype=torch.float32)
def bits(t): return [int(b) & 0xffff for b in t.view(torch.int16).tolist()]
print('return {')
print('  inputs = {' + ', '.join('0x%08x' % struct.unpack('<I', struct.pack('<f', v))[0] for v in x.tolist()) + '},')
print('  bfloat16 = {' + ', '.join('0x%04x' % b for b in bits(x.to(torch.bfloat16))) + '},')
print('  float16 = {' + ', '.join('0x%04x' % b for b in bits(x.to(torch.float16))) + '},')
def f32bits(t): return [struct.unpack('<I', struct.pack('<f', v))[0] for v in t.tolist()]
print('  bfloat16_back = {' + ', '.join('0x%08x' % b for b in f32bits(x.to(torch.bfloat16).float())) + '},')
print('  float16_back = {' + ', '.join('0x%08x' % b for b in f32bits(x.to(torch.float16).float())) + '},')
i = torch.tensor([0, 1, -7, 257, 2049, 65535, 2**40 + 2**32], dtype=torch.int64)
print('  int64s = {' + ', '.join('%d' % v for v in i.tolist()) + '},')
print('  int64_bfloat16 = {' + ', '.join('0x%04x' % b for b in bits(i.to(torch.bfloat16))) + '},')
print('  int64_float16 = {' + ', '.join('0x%04x' % b for b in bits(i.to(torch.float16))) + '},')
print('  bfloat16_text = %r,' % str(torch.tensor([1.0, 2.5, -3.0, 3.14159265], dtype=torch.bfloat16).tolist()))
print('}')
