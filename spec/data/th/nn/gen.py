# PyTorch (float64) references for spec/th_nn_spec.lua's criterions, which follow Torch7's nn:
# ClassNLLCriterion = nll_loss, CrossEntropyCriterion = cross_entropy (weights: divided by the
# picked weights' sum when averaging), MSECriterion = mse_loss, AbsCriterion = l1_loss,
# SmoothL1Criterion = smooth_l1_loss, DistKLDivCriterion = kl_div (mean over the elements),
# BCECriterion = binary cross-entropy (Torch7 adds eps = 1e-12 inside the logs: written out). Run with
# /work/venv-torch/bin/python gen.py; writes the .npy files beside it.
import numpy as np
import torch

torch.manual_seed(7)
x = torch.randn(4, 5, dtype=torch.float64)
target = torch.tensor([2, 5, 1, 5]) - 1  # Torch7's classes count from 1
weights = torch.tensor([0.5, 1.0, 2.0, 1.5, 0.25], dtype=torch.float64)
p = torch.rand(4, 5, dtype=torch.float64) * 0.9 + 0.05
t = (torch.rand(4, 5, dtype=torch.float64) > 0.5).to(torch.float64)
y = torch.randn(4, 5, dtype=torch.float64)
eps = 1e-12


def grad_of(fn, inp):
    inp = inp.clone().requires_grad_(True)
    loss = fn(inp)
    loss.backward()
    return loss.item(), inp.grad.numpy()


def bce(weighted, average):
    def fn(q):
        terms = t * torch.log(q + eps) + (1 - t) * torch.log(1 - q + eps)
        if weighted:
            terms = terms * weights
        s = -terms.sum()
        return s / q.numel() if average else s
    return fn


cases = {
    'nll': lambda v: torch.nn.functional.nll_loss(v, target),
    'nll_sum': lambda v: torch.nn.functional.nll_loss(v, target, reduction='sum'),
    'nll_weights': lambda v: torch.nn.functional.nll_loss(v, target, weight=weights),
    'ce': lambda v: torch.nn.functional.cross_entropy(v, target),
    'ce_weights': lambda v: torch.nn.functional.cross_entropy(v, target, weight=weights),
}
out = {'x': x.numpy(), 'target': (target + 1).to(torch.float64).numpy(), 'weights': weights.numpy(),
       'p': p.numpy(), 't': t.numpy(), 'y': y.numpy()}
for name, fn in cases.items():
    loss, g = grad_of(fn, x)
    out[name + '_loss'], out[name + '_grad'] = np.array(loss), g
logq = torch.log_softmax(torch.randn(4, 5, dtype=torch.float64), 1)
tq = torch.softmax(torch.randn(4, 5, dtype=torch.float64), 1)
tq[0, 1] = 0  # a zero target: its term is 0, as Torch7's
out['logq'], out['tq'] = logq.numpy(), tq.numpy()
for name, fn, inp in [('mse', lambda v: torch.nn.functional.mse_loss(v, y), x),
                      ('abs', lambda v: torch.nn.functional.l1_loss(v, y), x),
                      ('abs_sum', lambda v: torch.nn.functional.l1_loss(v, y, reduction='sum'), x),
                      ('smoothl1', lambda v: torch.nn.functional.smooth_l1_loss(v, y), x),
                      ('kldiv', lambda v: torch.nn.functional.kl_div(v, tq, reduction='mean'), logq),
                      ('mse_sum', lambda v: torch.nn.functional.mse_loss(v, y, reduction='sum'), x),
                      ('bce', bce(False, True), p), ('bce_weights_sum', bce(True, False), p)]:
    loss, g = grad_of(fn, inp)
    out[name + '_loss'], out[name + '_grad'] = np.array(loss), g
# SpatialConvolution(2, 3, kW=3, kH=2, dW=2, dH=1, padW=1, padH=0) = conv2d; SpatialMaxPooling(3, 3,
# 2, 2, 1, 1):ceil() = max_pool2d(ceil_mode=True); SpatialAveragePooling(3, 3, 2, 2, 1, 1):ceil()
# = avg_pool2d(ceil_mode=True), and (3, 2, 1, 2, 1, 1) with setCountExcludePad() =
# count_include_pad=False; gradients of sum(output * r).
img = torch.randn(2, 2, 5, 6, dtype=torch.float64)
conv_w = torch.randn(3, 2, 2, 3, dtype=torch.float64)
conv_b = torch.randn(3, dtype=torch.float64)
for name, fn, inp in [
        ('conv', lambda v: torch.nn.functional.conv2d(v, conv_w, conv_b, stride=(1, 2), padding=(0, 1)), img),
        ('pool', lambda v: torch.nn.functional.max_pool2d(v, 3, 2, 1, ceil_mode=True), img),
        ('avgpool', lambda v: torch.nn.functional.avg_pool2d(v, 3, 2, 1, ceil_mode=True), img),
        ('avgpool_exclude', lambda v: torch.nn.functional.avg_pool2d(v, (2, 3), (2, 1), (1, 1), ceil_mode=True,
                                                                      count_include_pad=False), img)]:
    v = inp.clone().requires_grad_(True)
    y_ = fn(v)
    r = torch.randn(y_.shape, dtype=torch.float64)
    (y_ * r).sum().backward()
    out[name + '_out'], out[name + '_r'], out[name + '_grad'] = y_.detach().numpy(), r.numpy(), v.grad.numpy()
out['img'], out['conv_w'], out['conv_b'] = img.numpy(), conv_w.numpy(), conv_b.numpy()

# TemporalConvolution(3, 2, kW=3, dW=2) on 2 sequences of 8 frames = conv1d over the frames
# (weight 2 x (3 frames * 3 features), frame-major, as Torch7's); gradients of sum(output * r).
seq = torch.randn(2, 8, 3, dtype=torch.float64)
tc_w, tc_b = torch.randn(2, 9, dtype=torch.float64), torch.randn(2, dtype=torch.float64)
v = seq.clone().requires_grad_(True)
y_ = torch.nn.functional.conv1d(v.transpose(1, 2), tc_w.view(2, 3, 3).transpose(1, 2), tc_b, stride=2).transpose(1, 2)
r = torch.randn(y_.shape, dtype=torch.float64)
(y_ * r).sum().backward()
out.update(seq=seq.numpy(), tc_w=tc_w.numpy(), tc_b=tc_b.numpy(), tc_out=y_.detach().numpy(), tc_r=r.numpy(),
           tc_grad=v.grad.numpy())

# SpatialBatchNormalization(2) = batch_norm(training=True, momentum=0.1, eps=1e-5) on img, with
# weight and bias; the running statistics after that step; then batch_norm in evaluation.
bn_w, bn_b = torch.rand(2, dtype=torch.float64), torch.randn(2, dtype=torch.float64)
rm, rv = torch.zeros(2, dtype=torch.float64), torch.ones(2, dtype=torch.float64)
v = img.clone().requires_grad_(True)
y_ = torch.nn.functional.batch_norm(v, rm, rv, bn_w, bn_b, training=True, momentum=0.1, eps=1e-5)
r = torch.randn(y_.shape, dtype=torch.float64)
(y_ * r).sum().backward()
out.update(bn_w=bn_w.numpy(), bn_b=bn_b.numpy(), bn_out=y_.detach().numpy(), bn_r=r.numpy(), bn_grad=v.grad.numpy(),
           bn_running_mean=rm.numpy(), bn_running_var=rv.numpy(),
           bn_eval=torch.nn.functional.batch_norm(img, rm, rv, bn_w, bn_b, training=False, eps=1e-5).numpy())
for name, arr in out.items():
    np.save(name + '.npy', np.asarray(arr, dtype=np.float64))
