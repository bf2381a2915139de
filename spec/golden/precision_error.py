#!/usr/bin/python3
# PyTorch's own error per case and tensor, ‖out − ref64‖ / ‖ref64‖, in float32 or bfloat16: each
# set's make.py computes the case again from its inputs rounded to float32, and the result is
# compared with the stored float64 outputs. Prints, per case and tensor, what it computes, the
# value in the precision's JSON and their ratio. With --write it rewrites the JSON from what it
# computes, only if every value is identical to the stored one (--force: anyway).
# - float32 (pytorch_float32_error.json): in float32, the cells with the composed ops of README's
#   formulas (compute32), as the stored errors were measured.
# - bfloat16 (pytorch_bfloat16_error.json): the set's own computation (compute: the composed LLTM,
#   nn.LSTMCell, GRUCell, LSTM, GRU) in float32 under torch.autocast('cpu', dtype=torch.bfloat16).
#   PyTorch 1.13's CPU autocast casts linear, mm, addmm and matmul to bfloat16, also where the
#   modules call them inside: operands, biases (addmm) and results in bfloat16, and the pointwise
#   ops after them stay in bfloat16 until they meet a float32 tensor (the LLTM's bias, the
#   modules' states); backward runs each product in bfloat16 as its forward did.
# The errors depend on the BLAS's summation order (threads, CPU): expect the same order of
# magnitude, not the same digits, elsewhere. Here (Debian's python3-torch 1.13, 2 threads) all 215
# float32 values come out identical (OMP_NUM_THREADS=1: 185), all 207 bfloat16 ones (1 thread: 203;
# the others within 0.5%).
# Run from anywhere: spec/golden/precision_error.py [--dtype float32|bfloat16] [--write [--force]]
import argparse, contextlib, importlib.util, json, os, sys
sys.dont_write_bytecode = True
import torch
import golden

RECURRENT = ['gru_cell', 'gru_seq', 'lltm_cell', 'lltm_seq', 'lstm_cell', 'lstm_seq']
# Per precision: the sets (those fused computes in it), which function of make.py, and under what.
PRECISIONS = {
    'float32': dict(sets=['gc'] + RECURRENT, compute=lambda m: getattr(m, 'compute32', m.compute),
                    context=contextlib.nullcontext),
    'bfloat16': dict(sets=RECURRENT, compute=lambda m: m.compute,
                     context=lambda: torch.autocast('cpu', dtype=torch.bfloat16)),
}


def module(setname):
    spec = importlib.util.spec_from_file_location('golden_make_' + setname,
                                                  os.path.join(golden.HERE, setname, 'make.py'))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--dtype', choices=sorted(PRECISIONS), default='float32')
    parser.add_argument('--write', action='store_true')
    parser.add_argument('--force', action='store_true')
    args = parser.parse_args()
    precision = PRECISIONS[args.dtype]
    path = os.path.join(golden.HERE, 'pytorch_%s_error.json' % args.dtype)
    stored = {}
    if os.path.exists(path):
        with open(path) as f:
            stored = json.load(f)
    got, worst, same, total = {}, 1.0, 0, 0
    for setname in precision['sets']:
        m = module(setname)
        compute = precision['compute'](m)
        for case in golden.cases(setname):
            folder = os.path.join(golden.HERE, setname, case)
            names = m.INPUTS(folder) if callable(m.INPUTS) else m.INPUTS
            ins = {n: golden.load(folder, n) for n in names}
            # The inputs rounded to float32 (lengths stay exact: small integers).
            with precision['context']():
                outs = compute(folder, {n: t.float() for n, t in ins.items()}, torch.float32)
            key = setname + '/' + case
            got[key] = {}
            for name in sorted(outs):
                if name == 'loss':
                    continue
                e = golden.rel(outs[name].detach().double().numpy(), golden.load(folder, name).numpy())
                got[key][name] = e
                s = stored.get(key, {}).get(name)
                total, same = total + 1, same + (e == s)
                ratio = e / s if s else float('nan')
                if s:
                    worst = max(worst, ratio, 1 / ratio if ratio > 0 else float('inf'))
                print('%-24s %-24s %.3g (stored %s, ratio %.3g)' % (key, name, e,
                      '%.3g' % s if s is not None else 'none', ratio))
    missing = sorted(set(stored) - set(got))
    if missing:
        print('in the JSON but not computed:', ', '.join(missing))
    print('largest factor between computed and stored: %.3g; %d of %d values identical' % (worst, same, total))
    if args.write:
        # Only where it changes nothing (every value identical), unless --force.
        if (same < total or missing) and not args.force:
            print('not written: not every stored value is reproduced (--force writes anyway)')
            sys.exit(1)
        with open(path, 'w') as f:
            json.dump(got, f, indent=1, sort_keys=True)
        print('written', path)


if __name__ == '__main__':
    main()
