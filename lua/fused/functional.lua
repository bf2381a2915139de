-- Function-style ops, the counterpart of torch.autograd.Function: forward returns its outputs
-- and a ctx holding what backward needs; backward takes the ctx and the gradients arriving at
-- the outputs, and returns one gradient per forward input, in the forward's order.
--
--   local new_h, new_c, ctx = fused.functional.lltm_forward(x, W, b, h, c)
--   local d_x, d_W, d_b, d_h, d_c = fused.functional.lltm_backward(ctx, grad_h, grad_c)
local ffi = require 'ffi'
local lib = require 'fused.lib'
local tensor = require 'fused.tensor'

local C, check, expect = lib.C, lib.check, tensor.expect
local M = {}

local sizes = ffi.new('int64_t[2]')

-- The dims the output sizes are read from; the C checks say everything else.
local function expect_matrix(t, fn, arg)
  expect(t, fn, arg)
  if t.ndim ~= 2 then
    error(string.format("%s: argument '%s' expected 2 dims, got %d (shape [%s])", fn, arg,
                        t.ndim, table.concat(t:shape(), ', ')), 3)
  end
  return t
end

function M.lltm_forward(x, W, b, h, c)
  local fn = 'lltm_forward'
  expect_matrix(x, fn, 'x')
  expect_matrix(h, fn, 'h')
  expect(W, fn, 'W'); expect(b, fn, 'b'); expect(c, fn, 'c')
  local new_h, new_c = tensor.empty_like(h), tensor.empty_like(h)
  sizes[0], sizes[1] = x.sizes[0], 4 * h.sizes[1]
  local saved = tensor.new(2, sizes, x.scalar_type, x.device_type)
  check(C.fused_lltm_forward(new_h, new_c, saved, x, h, c, W, b))
  return new_h, new_c, { x = x, h = h, W = W, saved = saved }
end

local function expect_ctx(ctx, fn)
  if type(ctx) ~= 'table' or not ctx.saved then
    error(string.format("%s: argument 'ctx' expected the ctx returned by lltm_forward, got %s",
                        fn, type(ctx)), 3)
  end
  return ctx
end

local function backward(fn, ctx, grad_h, grad_c, d_W, d_b, accumulate)
  expect(grad_h, fn, 'grad_h'); expect(grad_c, fn, 'grad_c')
  local d_x, d_h, d_c = tensor.empty_like(ctx.x), tensor.empty_like(ctx.h), tensor.empty_like(ctx.h)
  check(C.fused_lltm_backward(d_x, d_h, d_c, d_W, d_b, grad_h, grad_c, ctx.saved, ctx.x, ctx.h,
                              ctx.W, accumulate))
  return d_x, d_h, d_c
end

function M.lltm_backward(ctx, grad_h, grad_c)
  local fn = 'lltm_backward'
  expect_ctx(ctx, fn)
  local d_W = tensor.empty_like(ctx.W)
  sizes[0] = ctx.W.sizes[0]
  local d_b = tensor.new(1, sizes, ctx.W.scalar_type, ctx.W.device_type)
  local d_x, d_h, d_c = backward(fn, ctx, grad_h, grad_c, d_W, d_b, 0)
  return d_x, d_W, d_b, d_h, d_c
end

-- As lltm_backward, but ADDS the weight and bias gradients into gradWeight and gradBias (what
-- modules do) and returns d_x, d_h, d_c.
function M.lltm_backward_accumulate(ctx, grad_h, grad_c, gradWeight, gradBias)
  local fn = 'lltm_backward_accumulate'
  expect_ctx(ctx, fn)
  expect(gradWeight, fn, 'gradWeight'); expect(gradBias, fn, 'gradBias')
  return backward(fn, ctx, grad_h, grad_c, gradWeight, gradBias, 1)
end

return M
