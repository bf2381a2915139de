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
local blame = require 'fused.blame'
local out_ = require 'fused.ops.out'
local lengths_ = require 'fused.functional.lengths'
local args = require 'fused.functional.args'

local C, check = lib.C, args.check
local result, like = out_.result, out_.like
local M = {}
local outs, expect_dims, NO_OUT = args.outs, args.expect_dims, args.NO_OUT
local floating, optional = args.expect_floating, args.optional_floating

local sizes = out_.sizes()
local tensor_t = ffi.typeof('fused_tensor')
local step_sizes, step_strides = out_.sizes(), out_.sizes()

-- v (a struct kept for the purpose, or nil for a new one) made a view of the contiguous B×N t
-- (named arg) as one step, 1×B×N.
local VIEW_NAMES = {}
local function as_step(v, t, fn, arg)
  if C.fused_tensor_is_contiguous(t) ~= 1 then
    blame(string.format("%s: argument '%s' expected a contiguous tensor, got sizes [%s] with "
                        .. "strides [%s] (call :contiguous() first)", fn, arg,
                        table.concat(t:shape(), ', '), table.concat(t:stride(), ', ')))
  end
  if v then C.fused_tensor_release(v) else v = tensor_t() end
  step_sizes[0], step_sizes[1], step_sizes[2] = 1, t.sizes[0], t.sizes[1]
  step_strides[0], step_strides[1], step_strides[2] = t.sizes[0] * t.sizes[1], t.sizes[1], 1
  VIEW_NAMES.src = arg
  check(C.fused_tensor_view(v, t, 3, step_sizes, step_strides, 0), fn, VIEW_NAMES)
  return v
end

local FORWARD_NAMES = { xs = 'x', h0 = 'h', c0 = 'c', hs = 'new_h', c_T = 'new_c' }

function M.lltm_forward(x, W, b, h, c, opts, ...)
  local fn = 'lltm_forward'
  args.no_more(fn, 6, ...)
  local o = outs(opts, fn)
  expect_dims(x, 2, fn, 'x')
  expect_dims(h, 2, fn, 'h')
  floating(W, fn, 'W'); floating(b, fn, 'b'); floating(c, fn, 'c')
  local new_h, new_c, ctx = like(fn, o[1], h), like(fn, o[2], h), args.out_ctx(o[3], fn, 3)
  ctx.h_T = like(fn, ctx.h_T, h)
  sizes[0], sizes[1], sizes[2] = 1, x.sizes[0], 5 * h.sizes[1]
  ctx.saved = result(fn, ctx.saved, 3, sizes, x.scalar_type, x.device_type)
  ctx.xs = as_step(ctx.xs, x, fn, 'x')
  ctx.hs = as_step(ctx.hs, new_h, fn, 'new_h')
  check(C.fused_lltm_seq_forward(ctx.hs, ctx.h_T, new_c, ctx.saved, ctx.xs, h, c, W, b, nil, 0,
                                 C.FUSED_COMPUTE_DEFAULT), fn, FORWARD_NAMES)
  ctx.x, ctx.h, ctx.W, ctx.kind = x, h, W, fn
  return new_h, new_c, ctx
end

local expect_ctx = args.expect_ctx

local BACKWARD_NAMES = { xs = 'x', d_xs = 'd_x', d_h0 = 'd_h', d_c0 = 'd_c', d_hT = 'grad_h',
                         d_cT = 'grad_c' }
-- The _accumulate backwards' names: the gradients the user passes too.
local SEQ_ACCUMULATE_NAMES = { d_W = 'gradWeight', d_b = 'gradBias' }
local ACCUMULATE_NAMES = { d_W = 'gradWeight', d_b = 'gradBias' }
for k, v in pairs(BACKWARD_NAMES) do ACCUMULATE_NAMES[k] = v end

local function cell_backward(fn, ctx, grad_h, grad_c, d_W, d_b, accumulate, o_x, o_h, o_c)
  floating(grad_h, fn, 'grad_h'); floating(grad_c, fn, 'grad_c')
  local d_x, d_h, d_c = like(fn, o_x, ctx.x), like(fn, o_h, ctx.h), like(fn, o_c, ctx.h)
  ctx.work = like(fn, ctx.work, ctx.saved)
  check(C.fused_copy(ctx.work, ctx.saved), fn)
  ctx.d_xs = as_step(ctx.d_xs, d_x, fn, 'd_x')
  check(C.fused_lltm_seq_backward(ctx.d_xs, d_h, d_c, d_W, d_b, nil, grad_h, grad_c, ctx.work,
                                  ctx.xs, ctx.W, nil, 0, accumulate, C.FUSED_COMPUTE_DEFAULT),
        fn, accumulate == 1 and ACCUMULATE_NAMES or BACKWARD_NAMES)
  return d_x, d_h, d_c
end

-- The gradients of W and b: out entries, else new tensors.
local function weight_grads(fn, W, o_W, o_b)
  sizes[0] = W.sizes[0]
  return like(fn, o_W, W), result(fn, o_b, 1, sizes, W.scalar_type, W.device_type)
end

function M.lltm_backward(ctx, grad_h, grad_c, opts, ...)
  local fn = 'lltm_backward'
  args.no_more(fn, 4, ...)
  local o = outs(opts, fn)
  expect_ctx(ctx, fn, 'lltm_forward')
  local d_W, d_b = weight_grads(fn, ctx.W, o[2], o[3])
  local d_x, d_h, d_c = cell_backward(fn, ctx, grad_h, grad_c, d_W, d_b, 0, o[1], o[4], o[5])
  return d_x, d_W, d_b, d_h, d_c
end

function M.lltm_backward_accumulate(ctx, grad_h, grad_c, gradWeight, gradBias, opts, ...)
  local fn = 'lltm_backward_accumulate'
  args.no_more(fn, 6, ...)
  local o = outs(opts, fn)
  expect_ctx(ctx, fn, 'lltm_forward')
  floating(gradWeight, fn, 'gradWeight'); floating(gradBias, fn, 'gradBias')
  return cell_backward(fn, ctx, grad_h, grad_c, gradWeight, gradBias, 1, o[1], o[2], o[3])
end

-- Over a sequence: xs T×B×I, h0 and c0 B×H; hs T×B×H, c_T B×H. The backward writes over ctx's
-- saved activations, so it runs once per forward; d_hT and d_cT may be nil (zero).
function M.lltm_seq_forward(xs, W, b, h0, c0, opts, ...)
  local fn = 'lltm_seq_forward'
  args.no_more(fn, 6, ...)
  local o = outs(opts, fn, { 'out', 'lengths', 'reverse', 'compute' })
  opts = opts or NO_OUT
  local compute = args.compute(opts.compute, fn)
  expect_dims(xs, 3, fn, 'xs')
  expect_dims(h0, 2, fn, 'h0')
  floating(W, fn, 'W'); floating(b, fn, 'b'); floating(c0, fn, 'c0')
  local dtype, device = xs.scalar_type, xs.device_type
  sizes[0], sizes[1], sizes[2] = xs.sizes[0], xs.sizes[1], h0.sizes[1]
  local hs = result(fn, o[1], 3, sizes, dtype, device)
  local c_T = result(fn, o[2], 2, sizes + 1, dtype, device)
  local ctx = args.out_ctx(o[3], fn, 3)
  ctx.h_T = result(fn, o[4] or ctx.h_T, 2, sizes + 1, dtype, device)
  sizes[2] = 5 * h0.sizes[1]
  ctx.saved = result(fn, ctx.saved, 3, sizes, dtype, device)
  local lengths = lengths_.check(opts.lengths, tonumber(xs.sizes[0]), tonumber(xs.sizes[1]), fn)
  local reverse = args.reverse(opts.reverse, fn)
  check(C.fused_lltm_seq_forward(hs, ctx.h_T, c_T, ctx.saved, xs, h0, c0, W, b, lengths, reverse,
                                 compute), fn)
  ctx.compute = compute
  ctx.xs, ctx.h0, ctx.W, ctx.consumed, ctx.kind = xs, h0, W, false, fn
  ctx.lengths, ctx.reverse = lengths, reverse
  return hs, c_T, ctx
end

local function seq_backward(fn, ctx, d_hs, d_hT, d_cT, d_W, d_b, accumulate, o_xs, o_h0, o_c0)
  if ctx.consumed then
    blame(fn .. ": the ctx was already gone back through (backward runs once per forward)")
  end
  floating(d_hs, fn, 'd_hs'); optional(d_hT, fn, 'd_hT'); optional(d_cT, fn, 'd_cT')
  local d_xs, d_h0 = like(fn, o_xs, ctx.xs), like(fn, o_h0, ctx.h0)
  local d_c0 = like(fn, o_c0, ctx.h0)
  check(C.fused_lltm_seq_backward(d_xs, d_h0, d_c0, d_W, d_b, d_hs, d_hT, d_cT, ctx.saved,
                                  ctx.xs, ctx.W, ctx.lengths, ctx.reverse, accumulate,
                                  ctx.compute), fn, accumulate == 1 and SEQ_ACCUMULATE_NAMES or nil)
  ctx.consumed = true
  return d_xs, d_h0, d_c0
end

function M.lltm_seq_backward(ctx, d_hs, d_hT, d_cT, opts, ...)
  local fn = 'lltm_seq_backward'
  args.no_more(fn, 5, ...)
  local o = outs(opts, fn)
  expect_ctx(ctx, fn, 'lltm_seq_forward')
  local d_W, d_b = weight_grads(fn, ctx.W, o[2], o[3])
  local d_xs, d_h0, d_c0 = seq_backward(fn, ctx, d_hs, d_hT, d_cT, d_W, d_b, 0, o[1], o[4], o[5])
  return d_xs, d_W, d_b, d_h0, d_c0
end

function M.lltm_seq_backward_accumulate(ctx, d_hs, d_hT, d_cT, gradWeight, gradBias, opts, ...)
  local fn = 'lltm_seq_backward_accumulate'
  args.no_more(fn, 7, ...)
  local o = outs(opts, fn)
  expect_ctx(ctx, fn, 'lltm_seq_forward')
  floating(gradWeight, fn, 'gradWeight'); floating(gradBias, fn, 'gradBias')
  return seq_backward(fn, ctx, d_hs, d_hT, d_cT, gradWeight, gradBias, 1, o[1], o[2], o[3])
end

return M
