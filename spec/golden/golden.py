# What the golden generators without data of their own share (spec/golden/<set>/make.py): each
# set's make.py gives compute(case_folder, inputs, dtype) -> {name: tensor} from the inputs stored
# in the case folder; run() recomputes every case in float64 and, with --check, prints per tensor
# the relative difference ||out - stored|| / ||stored|| (as the specs measure) and the largest
# elementwise one against the stored file instead of writing. Writing happens only
# where every stored tensor is reproduced exactly (bit for bit), so it never changes the data.
import json, os, sys
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def load(folder, name, dtype=torch.float64):
    return torch.from_numpy(np.load(os.path.join(folder, name + '.npy'))).to(dtype)


def config(folder):
    with open(os.path.join(folder, 'config.json')) as f:
        return json.load(f)


def cases(setname):
    d = os.path.join(HERE, setname)
    return sorted(c for c in os.listdir(d) if os.path.isdir(os.path.join(d, c)) and not c.startswith('_'))


def rel(a, ref):
    a, ref = np.asarray(a, np.float64), np.asarray(ref, np.float64)
    n = np.linalg.norm(ref.ravel())
    d = np.linalg.norm((a - ref).ravel())
    return d / n if n > 0 else d


def maxrel(a, ref):
    # The largest elementwise relative difference (|a - ref| / max(|ref|, tiny)).
    a, ref = np.asarray(a, np.float64), np.asarray(ref, np.float64)
    return float(np.max(np.abs(a - ref) / np.maximum(np.abs(ref), 1e-300))) if ref.size else 0.0


def run(setname, inputs, compute):
    check = '--check' in sys.argv[1:]
    worst, worst_el, exact_all = 0.0, 0.0, True
    for case in cases(setname):
        folder = os.path.join(HERE, setname, case)
        ins = {n: load(folder, n) for n in inputs(folder)}
        outs = compute(folder, ins, torch.float64)
        for name in sorted(outs):
            v = outs[name].detach().numpy().astype('<f8')
            path = os.path.join(folder, name + '.npy')
            stored = np.load(path)
            same = stored.shape == v.shape and stored.tobytes() == np.ascontiguousarray(v).tobytes()
            exact_all = exact_all and same
            if stored.shape != v.shape:
                print('%s/%s %s: shape %s, stored %s' % (setname, case, name, v.shape, stored.shape))
                worst = float('inf')
                continue
            m, r = maxrel(v, stored), rel(v, stored)
            worst, worst_el = max(worst, r), max(worst_el, m)
            if check:
                print('%-28s %-20s max elementwise rel %.3g, norm rel %.3g%s' % (
                    setname + '/' + case, name, m, r, ' (identical)' if same else ''))
    if check:
        print('%s: largest ||out - stored|| / ||stored|| %.3g (largest elementwise %.3g)%s' % (
            setname, worst, worst_el, ', every file identical' if exact_all else ''))
        return
    if not exact_all:
        print('%s: not written: the stored files are not reproduced bit for bit (run --check)' % setname)
        sys.exit(1)
    # Every file already equals what is computed: rewriting gives identical files.
    for case in cases(setname):
        folder = os.path.join(HERE, setname, case)
        ins = {n: load(folder, n) for n in inputs(folder)}
        for name, t in compute(folder, ins, torch.float64).items():
            np.save(os.path.join(folder, name + '.npy'), t.detach().numpy().astype('<f8'))
    print('%s: written (identical to the stored files)' % setname)
