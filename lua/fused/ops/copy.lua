-- Copies and fills, c/ops/copy.c's: t:copy_(src), t:fill_(value), t:zero_(), t:clone(),
-- t:contiguous(). In place, PyTorch's names (a trailing underscore); any strides. The Torch7
-- names without it (t:copy(src), t:zero(), ...) are the same functions, kept for existing
-- scripts. Methods only: ops/init.lua makes fused.clone. M.copy and M.fill are the C calls for
-- library code (factories, to(), t[i] = v) that checked its arguments already.
local lib = require 'fused.lib'
local tensor = require 'fused.tensor'
local argcheck = require 'fused.check'

local C = lib.C
local Tensor = tensor.Tensor
local expect_writable, c_status = argcheck.expect_writable, argcheck.c_status
local M = {}

function M.copy(dst, src) c_status(C.fused_copy(dst, src)) end
function M.fill(t, value) c_status(C.fused_fill(t, value)) end

-- src of t's number of elements is copied in row-major order whatever its shape (as Torch7);
-- of fewer, it broadcasts to t's shape when it can (an expanded view: copy takes any strides).
local function broadcasts_to(src, t)
  if src.ndim > t.ndim then return false end
  for back = 1, src.ndim do
    local s = src.sizes[src.ndim - back]
    if s ~= 1 and s ~= t.sizes[t.ndim - back] then return false end
  end
  return true
end

function Tensor.copy_(t, src)
  expect_writable(t, 'copy_', 'self')
  argcheck.expect(src, 'copy_', 'src')
  if C.fused_tensor_numel(src) ~= C.fused_tensor_numel(t) and broadcasts_to(src, t) then
    src = src:expand(t:shape())
  end
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
