-- Embedding as functions: embedding(indices, weight) picks row i of weight (rows × dim) for each
-- index i (counted from 1, as in Lua and Torch7) of indices (shape S, int64, on weight's
-- device); the result is S × dim. embedding_backward_accumulate ADDS each row of d_out
-- into gradWeight at its index (repeated indices add up). {out = t} as every op.
local lib = require 'fused.lib'
local argcheck = require 'fused.check'
local out_ = require 'fused.ops.out'

local C, check, expect = lib.C, lib.check, argcheck.expect
local M = {}

local sizes = out_.sizes()
function M.embedding(indices, weight, opts)
  local fn = 'embedding'
  indices = out_.contiguous(argcheck.expect_dtype(indices, 'int64', fn, 'indices'))
  expect(weight, fn, 'weight')
  if indices.ndim >= 8 then
    error(string.format("%s: argument 'indices' expected at most 7 dims, got %d", fn, indices.ndim), 2)
  end
  for d = 0, indices.ndim - 1 do sizes[d] = indices.sizes[d] end
  sizes[indices.ndim] = weight.sizes[weight.ndim - 1]
  local out = out_.result(fn, out_.option(opts, fn), indices.ndim + 1, sizes, weight.scalar_type,
                          weight.device_type)
  check(C.fused_embedding_forward(out, weight, indices))
  return out
end

function M.embedding_backward_accumulate(d_out, indices, gradWeight)
  local fn = 'embedding_backward_accumulate'
  expect(d_out, fn, 'd_out'); expect(indices, fn, 'indices'); expect(gradWeight, fn, 'gradWeight')
  check(C.fused_embedding_backward(gradWeight, out_.contiguous(d_out), out_.contiguous(indices)))
  return gradWeight
end

return M
