-- Linear recurrences over the first dim, on the engine of c/ops/scan.c (its layout in c/fused.h):
--   fused.scan(a, b, h0, opts)               h_t = a_t * h_{t-1} + b_t, elementwise; a, b (T, ...)
--   fused.scan_backward(d_h, a, h, h0, opts) -> d_a, d_b, d_h0 (nil when h0 is nil)
--   fused.linear_scan(A, b, h0, opts)        h_t = A_t h_{t-1} + b_t with S coupled states:
--     A (T, B, S, S, D), b (T, B, S, D), h0 (B, S, D)
--   fused.linear_scan_backward(d_h, A, h, h0, opts) -> d_A, d_b, d_h0
-- h0 nil: zeros; for scan, h0 has the shape of one step (a's without its first dim). opts:
--   lengths  B step counts 1..T (a list or an int64 tensor) of a (T, B, ...) layout: a row's
--            later steps are 0 in h and in every gradient, and do not advance its state;
--   resets   a bool (T, B) tensor on a's device: at a step where it is true, h_{t-1} is h0 (a
--            new segment starts); true past a row's length is an error;
--   reverse  true: each row runs from its last step down to its first.
-- Backward takes the forward's h and opts, and d_h the gradient of every h_t.
local lib = require 'fused.lib'
local argcheck = require 'fused.check'
local blame = require 'fused.blame'
local dt = require 'fused.dtype'
local tensor = require 'fused.tensor'
local scan_options = require 'fused.ops.scan_options'
local out_ = require 'fused.ops.out'

local C, check, expect = lib.C, argcheck.c_status, argcheck.expect
local contiguous = out_.contiguous
local M = {}

local function shape_text(t) return '[' .. table.concat(t:shape(), ', ') .. ']' end

-- t is a tensor of ref's dtype, device and, when sizes is given, of that shape (a list; what:
-- how the sizes read).
local function expect_like(t, fn, arg, ref, ref_arg, sizes, what)
  expect(t, fn, arg)
  if t.scalar_type ~= ref.scalar_type or t.device ~= ref.device then
    blame(string.format("%s: argument '%s' expected %s on %s (as '%s'), got %s on %s", fn, arg,
                        ref.dtype, ref.device, ref_arg, t.dtype, t.device))
  end
  if not sizes then return end
  local same = t.ndim == #sizes
  for d = 1, #sizes do same = same and t:size(d) == sizes[d] end
  if not same then
    blame(string.format("%s: argument '%s' expected shape [%s] (%s), got %s", fn, arg,
                        table.concat(sizes, ', '), what, shape_text(t)))
  end
end

-- a (named arg) is a (T, ...) tensor of a floating dtype that computes.
local function expect_steps(a, fn, arg)
  expect(a, fn, arg)
  if a.ndim < 1 then
    blame(string.format("%s: argument '%s' expected a (T, ...) tensor, got a 0-d tensor", fn, arg))
  end
  if not dt.computes_floating[a.scalar_type] then
    blame(string.format("%s: argument '%s' expected a floating dtype (%s), got %s", fn, arg,
                        dt.floating_names(), a.dtype))
  end
end

-- One step's shape of a (T, ...) tensor.
local function step_shape(a)
  local s = a:shape()
  table.remove(s, 1)
  return s
end

-- h0 (nil or the shape of one step of a) for scan.
local function expect_h0(h0, fn, a)
  if h0 ~= nil then expect_like(h0, fn, 'h0', a, 'a', step_shape(a), 'one step of a') end
end

function M.scan(a, b, h0, opts)
  local fn = 'scan'
  expect_steps(a, fn, 'a')
  expect_like(b, fn, 'b', a, 'a', a:shape(), "a's")
  expect_h0(h0, fn, a)
  local T, B, D = scan_options.rows_of(a)
  local lengths, resets, reverse = scan_options.check(opts, fn, a, 'a', T, B, a.ndim >= 2)
  local h = tensor.empty_like(a)
  check(C.fused_linear_scan(h:view(T, B, 1, D), contiguous(a):view(T, B, 1, 1, D),
                            contiguous(b):view(T, B, 1, D),
                            h0 and contiguous(h0):view(B, 1, D), resets, lengths, reverse))
  return h
end

function M.scan_backward(d_h, a, h, h0, opts)
  local fn = 'scan_backward'
  expect_steps(a, fn, 'a')
  expect_like(d_h, fn, 'd_h', a, 'a', a:shape(), "a's")
  expect_like(h, fn, 'h', a, 'a', a:shape(), "a's")
  expect_h0(h0, fn, a)
  local T, B, D = scan_options.rows_of(a)
  local lengths, resets, reverse = scan_options.check(opts, fn, a, 'a', T, B, a.ndim >= 2)
  local d_a, d_b = tensor.empty_like(a), tensor.empty_like(a)
  local d_h0 = h0 and tensor.empty_like(h0)
  check(C.fused_linear_scan_backward(d_a:view(T, B, 1, 1, D), d_b:view(T, B, 1, D),
                                     d_h0 and d_h0:view(B, 1, D), contiguous(d_h):view(T, B, 1, D),
                                     contiguous(a):view(T, B, 1, 1, D),
                                     contiguous(h):view(T, B, 1, D),
                                     h0 and contiguous(h0):view(B, 1, D), resets, lengths, reverse))
  return d_a, d_b, d_h0
end

-- linear_scan's sizes from ref (named ref_arg: T, B, S, D), with A and h0 checked against them.
local function states_of(fn, ref, ref_arg, A, h0)
  expect(ref, fn, ref_arg)
  if ref.ndim ~= 4 then
    blame(string.format("%s: argument '%s' expected a (T, B, S, D) tensor, got shape %s", fn,
                        ref_arg, shape_text(ref)))
  end
  local T, B, S, D = ref:size(1), ref:size(2), ref:size(3), ref:size(4)
  expect_like(A, fn, 'A', ref, ref_arg, { T, B, S, S, D }, 'T, B, S, S, D')
  if h0 ~= nil then expect_like(h0, fn, 'h0', ref, ref_arg, { B, S, D }, 'B, S, D') end
  return T, B
end

function M.linear_scan(A, b, h0, opts)
  local fn = 'linear_scan'
  local T, B = states_of(fn, b, 'b', A, h0)
  local lengths, resets, reverse = scan_options.check(opts, fn, b, 'b', T, B, true)
  local h = tensor.empty_like(b)
  check(C.fused_linear_scan(h, contiguous(A), contiguous(b), h0 and contiguous(h0), resets,
                            lengths, reverse))
  return h
end

function M.linear_scan_backward(d_h, A, h, h0, opts)
  local fn = 'linear_scan_backward'
  local T, B = states_of(fn, h, 'h', A, h0)
  expect_like(d_h, fn, 'd_h', h, 'h', h:shape(), "h's")
  local lengths, resets, reverse = scan_options.check(opts, fn, h, 'h', T, B, true)
  local d_A, d_b = tensor.empty_like(A), tensor.empty_like(h)
  local d_h0 = h0 and tensor.empty_like(h0)
  check(C.fused_linear_scan_backward(d_A, d_b, d_h0, contiguous(d_h), contiguous(A), contiguous(h),
                                     h0 and contiguous(h0), resets, lengths, reverse))
  return d_A, d_b, d_h0
end

return M
