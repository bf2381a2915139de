-- Embedding as functions: embedding(indices, weight) picks row i of weight (rows × dim) for each
-- index i (counted from 1, as in Lua and Torch7) of indices (shape S, int64, on weight's
-- device); the result is S × dim. embedding_backward_accumulate ADDS each row of d_out
-- into gradWeight at its index (repeated indices add up). {out = t} as every op.
local lib = require 'fused.lib'
local blame = require 'fused.blame'
local argcheck = require 'fused.check'
local out_ = require 'fused.ops.out'
local args = require 'fused.functional.args'

local C, check = lib.C, args.check
local M = {}

-- A table of rows (weight, gradWeight): the dim the result's last size is read from.
local function expect_table(t, fn, arg)
  args.expect_floating(t, fn, arg)
  if t.ndim ~= 2 then
    blame(string.format("%s: argument '%s' expected 2 dims (rows x embedding_dim), got shape [%s]",
                        fn, arg, table.concat(t:shape(), ', ')))
  end
  return t
end

-- M.as: the functions with the public name to raise errors under first, for the modules.
M.as = {}

local sizes = out_.sizes()
function M.as.embedding(fn, indices, weight, opts)
  indices = out_.contiguous(argcheck.expect_dtype(indices, 'int64', fn, 'indices'))
  expect_table(weight, fn, 'weight')
  if indices.ndim >= 8 then
    blame(string.format("%s: argument 'indices' expected at most 7 dims, got %d", fn, indices.ndim))
  end
  for d = 0, indices.ndim - 1 do sizes[d] = indices.sizes[d] end
  sizes[indices.ndim] = weight.sizes[1]
  local out = out_.result(fn, out_.option(opts, fn), indices.ndim + 1, sizes, weight.scalar_type,
                          weight.device_type)
  check(C.fused_embedding_forward(out, weight, indices), fn)
  return out
end

-- The C function's names for the arguments.
local BACKWARD_NAMES = { grad_out = 'd_out', grad_weight = 'gradWeight' }

function M.as.embedding_backward_accumulate(fn, d_out, indices, gradWeight)
  args.expect_floating(d_out, fn, 'd_out')
  argcheck.expect_dtype(indices, 'int64', fn, 'indices')
  expect_table(gradWeight, fn, 'gradWeight')
  check(C.fused_embedding_backward(gradWeight, out_.contiguous(d_out), out_.contiguous(indices)),
        fn, BACKWARD_NAMES)
  return gradWeight
end

function M.embedding(indices, weight, opts, ...)
  args.no_more('embedding', 3, ...)
  return M.as.embedding('embedding', indices, weight, opts)
end

function M.embedding_backward_accumulate(d_out, indices, gradWeight, ...)
  local fn = 'embedding_backward_accumulate'
  args.no_more(fn, 3, ...)
  return M.as.embedding_backward_accumulate(fn, d_out, indices, gradWeight)
end

return M
