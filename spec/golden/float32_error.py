#!/usr/bin/python3
# PyTorch's own float32 error per case and tensor, ‖out32 − ref64‖ / ‖ref64‖: each set's make.py
# computes the case again from its inputs rounded to float32, in float32 (the cells with the
# composed ops of README's formulas, compute32, as the stored errors were measured), and the
# result is compared with the stored float64 outputs. Prints, per case and tensor, what it
# computes, the value in pytorch_float32_error.json and their ratio. With --write it rewrites the
# JSON from what it computes, only if every value is identical to the stored one (--force: anyway).
# The float32 error depends on the BLAS's summation order (threads, CPU): expect the same order of
# magnitude, not the same digits, elsewhere. Here (Debian's python3-torch 1.13, 2 threads) all 215
# values come out identical; with OMP_NUM_THREADS=1, 185 of them.
# Run from anywhere: spec/golden/float32_error.py [--write [--force]]
import importlib.util, json, os, sys
sys.dont_write_bytecode = True
import torch
import golden

SETS = ['gc', 'gru_cell', 'gru_seq', 'lltm_cell', 'lltm_seq', 'lstm_cell', 'lstm_seq']
PATH = os.path.join(golden.HERE, 'pytorch_float32_error.json')


def module(setname):
    spec = importlib.util.spec_from_file_location('golden_make_' + setname,
                                                  os.path.join(golden.HERE, setname, 'make.py'))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def main():
    with open(PATH) as f:
        stored = json.load(f)
    got, worst, same, total = {}, 1.0, 0, 0
    for setname in SETS:
        m = module(setname)
        for case in golden.cases(setname):
            folder = os.path.join(golden.HERE, setname, case)
            names = m.INPUTS(folder) if callable(m.INPUTS) else m.INPUTS
            ins = {n: golden.load(folder, n) for n in names}
            # The inputs rounded to float32 (lengths stay exact: small integers).
            outs = getattr(m, 'compute32', m.compute)(folder, {n: t.float() for n, t in ins.items()}, torch.float32)
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
    if '--write' in sys.argv[1:]:
        # Only where it changes nothing (every value identical), unless --force.
        if (same < total or missing) and '--force' not in sys.argv[1:]:
            print('not written: not every stored value is reproduced (--force writes anyway)')
            sys.exit(1)
        with open(PATH, 'w') as f:
            json.dump(got, f, indent=1, sort_keys=True)
        print('written', PATH)


if __name__ == '__main__':
    main()
