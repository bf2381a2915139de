-- Copies and fills, c/ops/copy.c's: t:copy_(src), t:fill_(value), t:zero_(), t:clone(),
-- t:contiguous(). In place, PyTorch's names (a trailing underscore); any strides. The Torch7
-- names without it (t:copy(src), t:zero(), ...) are the same functions, kept for existing
-- scripts. Methods only: ops/init.lua makes fused.clone. M.copy and M.fill are the C calls for
-- library code (factories, to(), t[i] = v) that checked its arguments already.
local lib = require 'fused.lib'
local tensor = require 'fused.tensor'
local argcheck = require 'fused.check'
local blame = require 'fused.blame'
local broadcast = require 'fused.ops.broadcast'

local C = lib.C
local Tensor = tensor.Tensor
local expect_writable, c_status = argcheck.expect_writable, argcheck.c_status
local M = {}

function M.copy(dst, src) c_status(C.fused_copy(dst, src)) end
function M.fill(t, value) c_status(C.fused_fill(t, value)) end

local function shape_text(t) return '[' .. table.concat(t:shape(), ', ') .. ']' end

-- src expanded to dst's shape, as PyTorch's copy_ takes it: src's sizes, aligned at the last
-- dim, are dst's or 1. Else the error naming fn and arg (what, "self's", names dst); a src of
-- as many elements in another shape (Torch7's copy, row-major whatever the shapes) is told to
-- view it first, so that a transposed shape never reshapes in silence.
function M.broadcast_source(dst, src, fn, arg, what)
  if broadcast.same_shape(src, dst) then return src end
  local fits = src.ndim <= dst.ndim
  for back = 1, fits and src.ndim or 0 do
    local s = src.sizes[src.ndim - back]
    fits = fits and (s == 1 or s == dst.sizes[dst.ndim - back])
  end
  if fits then return src:expand(dst:shape()) end
  local hint = ''
  if C.fused_tensor_numel(src) == C.fused_tensor_numel(dst) then
    hint = string.format("; to copy its %d elements in row-major order (Torch7's copy), view it "
                         .. "first: %s:view(%s)", dst:numel(), arg, table.concat(dst:shape(), ', '))
  end
  blame(string.format("%s: argument '%s' expected a shape that broadcasts to %s shape %s, got %s%s",
                      fn, arg, what, shape_text(dst), shape_text(src), hint))
end

-- t:copy_(src): src broadcast to t's shape, converted to t's dtype; between devices src moves
-- whole (contiguous) and keeps its dtype.
function Tensor.copy_(t, src)
  expect_writable(t, 'copy_', 'self')
  argcheck.expect(src, 'copy_', 'src')
  src = M.broadcast_source(t, src, 'copy_', 'src', "self's")
  if src.device_type ~= t.device_type then src = src:contiguous() end
  M.copy(t, src)
  return t
end

function Tensor.fill_(t, value)
  expect_writable(t, 'fill_', 'self')
  M.fill(t, argcheck.expect_scalar(value, t.scalar_type, 'fill_', 'value'))
  return t
end

function Tensor.zero_(t)
  expect_writable(t, 'zero_', 'self')
  M.fill(t, 0)
  return t
end

Tensor.copy, Tensor.fill, Tensor.zero = Tensor.copy_, Tensor.fill_, Tensor.zero_

function M.clone(t)
  local c = tensor.empty_like(t)
  M.copy(c, t)
  return c
end
Tensor.clone = M.clone

-- t, or a contiguous copy of it.
function M.contiguous(t)
  if C.fused_tensor_is_contiguous(t) == 1 then return t end
  return t:clone()
end
Tensor.contiguous = M.contiguous

return M
