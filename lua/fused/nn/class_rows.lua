-- How CrossEntropyLoss and NLLLoss read their input and targets: as rows of C scores, one
-- class index per row. Two layouts:
--   class-last (fused's): input N × C or T × B × C, targets with one index per row, any shape
--     (a Lua table, nested or flat, or a tensor);
--   class dim 2 (PyTorch's): input (N, C, d1, ...) with targets (N, d1, ...).
-- The rule: class dim 2 when the input has one dim more than the targets and the targets'
-- shape is the input's without dim 2; else class-last. (N, C) with (N) fits both, and they
-- are the same reading. A 3-D (A, B, B) input with (A, B) targets fits both and they differ:
-- refused, saying how to call it (flat targets read the class dim last).
local argcheck = require 'fused.check'
local blame = require 'fused.blame'
local inputs = require 'fused.nn.inputs'

local function shape_text(t) return '[' .. table.concat(t:shape(), ', ') .. ']' end

-- Whether targets' shape is input's without dim 2.
local function class_dim_2(input, targets)
  if input.ndim < 2 or targets.ndim ~= input.ndim - 1 then return false end
  for d = 1, targets.ndim do
    if targets:size(d) ~= input:size(d == 1 and 1 or d + 1) then return false end
  end
  return true
end

-- rows (N × C, contiguous), targets (N int64 on input's device), the shape of a per-target
-- result (reduction 'none'), and a function that takes a gradient to the rows back to the
-- input's shape. Errors are blamed on the user's line.
return function(input, targets, fn, arg)
  inputs.floating(input, fn, arg)
  local t = targets
  if type(t) == 'table' then t = inputs.index_list(t, fn, 'targets') end
  argcheck.expect_dtype(t, 'int64', fn, 'targets')
  t = t:to(input.device)
  local ndim = input.ndim
  local first = class_dim_2(input, t) and ndim > 2
  local last = (ndim == 2 or ndim == 3) and t:numel() * input:size(ndim) == input:numel()
  if input.ndim == 0 or input:size(first and 2 or ndim) == 0 then
    blame(string.format("%s: argument '%s' expected at least one class (a class dim of size >= 1), "
                        .. 'got shape %s', fn, arg, shape_text(input)))
  end
  if first and last then
    blame(string.format("%s: argument '%s' %s with targets %s reads both as PyTorch's (N, C, d) "
                        .. "and as class-last (T, B, C): pass the targets flat (view(-1)) to read "
                        .. "the class dim last, or transpose(2, 3) the %s and pass the targets flat "
                        .. "for (N, C, d)", fn, arg, shape_text(input), shape_text(t), arg))
  end
  if first then
    -- (N, C, d1, ..., dk) to (N, d1, ..., dk, C): dim 2 walked to the end.
    local x = input
    for d = 2, ndim - 1 do x = x:transpose(d, d + 1) end
    local moved = x:shape()
    local function back(d_rows)
      local d = d_rows:view(moved)
      for k = ndim - 1, 2, -1 do d = d:transpose(k, k + 1) end
      return d:contiguous()
    end
    return x:contiguous():view(-1, input:size(2)), t:contiguous():view(-1), t:shape(), back
  end
  if ndim ~= 2 and ndim ~= 3 then
    blame(string.format("%s: argument '%s' expected N x C, T x B x C, or PyTorch's (N, C, d1, ...) "
                        .. "with targets (N, d1, ...), got %s with targets %s", fn, arg,
                        shape_text(input), shape_text(t)))
  end
  local rows = input:contiguous():view(-1, input:size(ndim))
  if t:numel() ~= rows:size(1) then
    blame(string.format("%s: argument 'targets' expected %d class indices (one per row of the %s), got %d",
                        fn, rows:size(1), arg, t:numel()))
  end
  return rows, t:contiguous():view(-1), t:shape(), function(d_rows) return d_rows:view(input:shape()) end
end
