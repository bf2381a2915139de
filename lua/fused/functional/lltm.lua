-- The LLTM as functions, the counterpart of torch.autograd.Function: forward returns its outputs
-- and a ctx holding what backward needs; backward takes the ctx and the gradients arriving at
-- the outputs, and returns one gradient per forward input, in the forward's order.
--
--   local new_h, new_c, ctx = fused.functional.lltm_forward(x, W, b, h, c)
--   local d_x, d_W, d_b, d_h, d_c = fused.functional.lltm_backward(ctx, grad_h, grad_c)
--   local hs, c_T, ctx = fused.functional.lltm_seq_forward(xs, W, b, h0, c0)
--   local d_xs, d_W, d_b, d_h0, d_c0 = fused.functional.lltm_seq_backward(ctx, d_hs, d_hT, d_cT)
--
-- Both run on the cell engine (functional/rnn.lua), the cell as a sequence of one step (x,
-- new_h and d_x viewed as 1×B×·). The sequence takes the engine's options: lengths (a list of B step
-- counts) and reverse (steps from T down to 1); ctx.h_T is the final h (hs's last step when
-- neither is given), written into out[4] when given. The cell's backward may run more than
-- once for one forward: it works on a copy of the saved activations, which the engine's
-- backward overwrites; the sequence's runs once.
--
-- The _accumulate backwards ADD the weight and bias gradients into gradWeight and gradBias
-- (what modules do) and return the others. Every function takes {out = {...}} last: the tensors
-- to write, in the order returned, a ctx among them being an earlier ctx to refill (its saved
-- activations are reused). Outputs must not share memory with the inputs.
local ffi = require 'ffi'
local lib = require 'fused.lib'
local argcheck = require 'fused.check'
local out_ = require 'fused.ops.out'
local lengths_ = require 'fused.functional.lengths'
local args = require 'fused.functional.args'

local C, check, expect = lib.C, lib.check, argcheck.expect
local result, like = out_.result, out_.like
local M = {}
local outs, expect_dims, NO_OUT = args.outs, args.expect_dims, args.NO_OUT

local sizes = out_.sizes()
local tensor_t = ffi.typeof('fused_tensor')
local step_sizes, step_strides = out_.sizes(), out_.sizes()

-- The library's last error raised as fn's (level 3: the caller of the public function), the
-- engine's argument names replaced by the cell's (names[engine's] = cell's).
local function raise_as(fn, names)
  local message = ffi.string(C.fused_last_error()):gsub('^[%w_]+:', fn .. ':', 1)
  error((message:gsub("'([%w_]+)'", function(n) return "'" .. (names[n] or n) .. "'" end)), 3)
end

-- v (a struct kept for the purpose, or nil for a new one) made a view of the contiguous B×N t
-- (named arg) as one step, 1×B×N.
local VIEW_NAMES = {}
local function as_step(v, t, fn, arg)
  if C.fused_tensor_is_contiguous(t) ~= 1 then
    error(string.format("%s: argument '%s' expected a contiguous tensor, got sizes [%s] with "
                        .. "strides [%s] (call :contiguous() first)", fn, arg,
                        table.concat(t:shape(), ', '), table.concat(t:stride(), ', ')), 3)
  end
  if v then C.fused_tensor_release(v) else v = tensor_t() end
  step_sizes[0], step_sizes[1], step_sizes[2] = 1, t.sizes[0], t.sizes[1]
  step_strides[0], step_strides[1], step_strides[2] = t.sizes[0] * t.sizes[1], t.sizes[1], 1
  if C.fused_tensor_view(v, t, 3, step_sizes, step_strides, 0) ~= 0 then
    VIEW_NAMES.src = arg
    raise_as(fn, VIEW_NAMES)
  end
  return v
end

local FORWARD_NAMES = { xs = 'x', h0 = 'h', c0 = 'c', hs = 'new_h', c_T = 'new_c' }

function M.lltm_forward(x, W, b, h, c, opts)
  local fn = 'lltm_forward'
  local o = outs(opts, fn)
  expect_dims(x, 2, fn, 'x')
  expect_dims(h, 2, fn, 'h')
  expect(W, fn, 'W'); expect(b, fn, 'b'); expect(c, fn, 'c')
  local new_h, new_c, ctx = like(fn, o[1], h), like(fn, o[2], h), o[3] or {}
  ctx.h_T = like(fn, ctx.h_T, h)
  sizes[0], sizes[1], sizes[2] = 1, x.sizes[0], 5 * h.sizes[1]
  ctx.saved = result(fn, ctx.saved, 3, sizes, x.scalar_type, x.device_type)
  ctx.xs = as_step(ctx.xs, x, fn, 'x')
  ctx.hs = as_step(ctx.hs, new_h, fn, 'new_h')
  if C.fused_lltm_seq_forward(ctx.hs, ctx.h_T, new_c, ctx.saved, ctx.xs, h, c, W, b, nil, 0,
                               C.FUSED_COMPUTE_DEFAULT)
     ~= 0 then
    raise_as(fn, FORWARD_NAMES)
  end
  ctx.x, ctx.h, ctx.W = x, h, W
  return new_h, new_c, ctx
end

local function expect_ctx(ctx, fn, forward)
  if type(ctx) ~= 'table' or not ctx.saved then
    error(string.format("%s: argument 'ctx' expected the ctx returned by %s, got %s", fn,
                        forward, type(ctx)), 3)
  end
  return ctx
end

local BACKWARD_NAMES = { xs = 'x', d_xs = 'd_x', d_h0 = 'd_h', d_c0 = 'd_c', d_hT = 'grad_h',
                         d_cT = 'grad_c' }

local function cell_backward(fn, ctx, grad_h, grad_c, d_W, d_b, accumulate, o_x, o_h, o_c)
  expect(grad_h, fn, 'grad_h'); expect(grad_c, fn, 'grad_c')
  local d_x, d_h, d_c = like(fn, o_x, ctx.x), like(fn, o_h, ctx.h), like(fn, o_c, ctx.h)
  ctx.work = like(fn, ctx.work, ctx.saved)
  check(C.fused_copy(ctx.work, ctx.saved))
  ctx.d_xs = as_step(ctx.d_xs, d_x, fn, 'd_x')
  if C.fused_lltm_seq_backward(ctx.d_xs, d_h, d_c, d_W, d_b, nil, grad_h, grad_c, ctx.work,
                               ctx.xs, ctx.W, nil, 0, accumulate,
                               C.FUSED_COMPUTE_DEFAULT) ~= 0 then
    raise_as(fn, BACKWARD_NAMES)
  end
  return d_x, d_h, d_c
end

-- The gradients of W and b: out entries, else new tensors.
local function weight_grads(fn, W, o_W, o_b)
  sizes[0] = W.sizes[0]
  return like(fn, o_W, W), result(fn, o_b, 1, sizes, W.scalar_type, W.device_type)
end

function M.lltm_backward(ctx, grad_h, grad_c, opts)
  local fn = 'lltm_backward'
  local o = outs(opts, fn)
  expect_ctx(ctx, fn, 'lltm_forward')
  local d_W, d_b = weight_grads(fn, ctx.W, o[2], o[3])
  local d_x, d_h, d_c = cell_backward(fn, ctx, grad_h, grad_c, d_W, d_b, 0, o[1], o[4], o[5])
  return d_x, d_W, d_b, d_h, d_c
end

function M.lltm_backward_accumulate(ctx, grad_h, grad_c, gradWeight, gradBias, opts)
  local fn = 'lltm_backward_accumulate'
  local o = outs(opts, fn)
  expect_ctx(ctx, fn, 'lltm_forward')
  expect(gradWeight, fn, 'gradWeight'); expect(gradBias, fn, 'gradBias')
  return cell_backward(fn, ctx, grad_h, grad_c, gradWeight, gradBias, 1, o[1], o[2], o[3])
end

-- Over a sequence: xs T×B×I, h0 and c0 B×H; hs T×B×H, c_T B×H. The backward writes over ctx's
-- saved activations, so it runs once per forward; d_hT and d_cT may be nil (zero).
function M.lltm_seq_forward(xs, W, b, h0, c0, opts)
  local fn = 'lltm_seq_forward'
  local o = outs(opts, fn, { 'out', 'lengths', 'reverse', 'compute' })
  opts = opts or NO_OUT
  local compute = args.compute(opts.compute, fn)
  expect_dims(xs, 3, fn, 'xs')
  expect_dims(h0, 2, fn, 'h0')
  expect(W, fn, 'W'); expect(b, fn, 'b'); expect(c0, fn, 'c0')
  local dtype, device = xs.scalar_type, xs.device_type
  sizes[0], sizes[1], sizes[2] = xs.sizes[0], xs.sizes[1], h0.sizes[1]
  local hs = result(fn, o[1], 3, sizes, dtype, device)
  local c_T = result(fn, o[2], 2, sizes + 1, dtype, device)
  local ctx = o[3] or {}
  ctx.h_T = result(fn, o[4] or ctx.h_T, 2, sizes + 1, dtype, device)
  sizes[2] = 5 * h0.sizes[1]
  ctx.saved = result(fn, ctx.saved, 3, sizes, dtype, device)
  local lengths = lengths_.check(opts.lengths, tonumber(xs.sizes[0]), tonumber(xs.sizes[1]), fn)
  local reverse = opts.reverse and 1 or 0
  check(C.fused_lltm_seq_forward(hs, ctx.h_T, c_T, ctx.saved, xs, h0, c0, W, b, lengths, reverse,
                                 compute))
  ctx.compute = compute
  ctx.xs, ctx.h0, ctx.W, ctx.consumed = xs, h0, W, false
  ctx.lengths, ctx.reverse = lengths, reverse
  return hs, c_T, ctx
end

local function seq_backward(fn, ctx, d_hs, d_hT, d_cT, d_W, d_b, accumulate, o_xs, o_h0, o_c0)
  if ctx.consumed then
    error(fn .. ": the ctx was already gone back through (backward runs once per forward)", 3)
  end
  expect(d_hs, fn, 'd_hs')
  if d_hT ~= nil then expect(d_hT, fn, 'd_hT') end
  if d_cT ~= nil then expect(d_cT, fn, 'd_cT') end
  local d_xs, d_h0 = like(fn, o_xs, ctx.xs), like(fn, o_h0, ctx.h0)
  local d_c0 = like(fn, o_c0, ctx.h0)
  check(C.fused_lltm_seq_backward(d_xs, d_h0, d_c0, d_W, d_b, d_hs, d_hT, d_cT, ctx.saved,
                                  ctx.xs, ctx.W, ctx.lengths, ctx.reverse, accumulate,
                                  ctx.compute))
  ctx.consumed = true
  return d_xs, d_h0, d_c0
end

function M.lltm_seq_backward(ctx, d_hs, d_hT, d_cT, opts)
  local fn = 'lltm_seq_backward'
  local o = outs(opts, fn)
  expect_ctx(ctx, fn, 'lltm_seq_forward')
  local d_W, d_b = weight_grads(fn, ctx.W, o[2], o[3])
  local d_xs, d_h0, d_c0 = seq_backward(fn, ctx, d_hs, d_hT, d_cT, d_W, d_b, 0, o[1], o[4], o[5])
  return d_xs, d_W, d_b, d_h0, d_c0
end

function M.lltm_seq_backward_accumulate(ctx, d_hs, d_hT, d_cT, gradWeight, gradBias, opts)
  local fn = 'lltm_seq_backward_accumulate'
  local o = outs(opts, fn)
  expect_ctx(ctx, fn, 'lltm_seq_forward')
  expect(gradWeight, fn, 'gradWeight'); expect(gradBias, fn, 'gradBias')
  return seq_backward(fn, ctx, d_hs, d_hT, d_cT, gradWeight, gradBias, 1, o[1], o[2], o[3])
end

return M
