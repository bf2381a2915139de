-- Reductions. t:sum(dim) keeps dim with size 1, as Torch7 does, and takes {out = t} as every op
-- (ops/out.lua); t:sum() is the sum of all, a number; t:sum_squares() a number accumulated in
-- float64, of a contiguous t only (clip_grad_norm's gradients, which it then scales in place).
local ffi = require 'ffi'
local lib = require 'fused.lib'
local tensor = require 'fused.tensor'
local out_ = require 'fused.ops.out'

local C, check, expect = lib.C, lib.check, tensor.expect
local contiguous, dense, finish = out_.contiguous, out_.dense, out_.finish
local M = {}

local sizes = out_.sizes()
function M.sum(t, dim, opts)
  t = contiguous(expect(t, 'sum', 'input'))
  if dim == nil then return M.sum(t:view(-1), 1):item() end
  dim = tensor.check_dim(t, dim, 'sum')
  for d = 0, t.ndim - 1 do sizes[d] = t.sizes[d] end
  sizes[dim - 1] = 1
  local out = out_.result('sum', out_.option(opts, 'sum'), t.ndim, sizes, t.scalar_type, t.device_type)
  local dst = dense(out)
  check(C.fused_sum_dim(dst, t, dim - 1))
  return finish(out, dst)
end

function M.mean(t, dim, opts)
  expect(t, 'mean', 'input')
  if dim == nil then return M.sum(t) / t:numel() end
  dim = tensor.check_dim(t, dim, 'mean')
  return M.sum(t, dim, opts):div_(t:size(dim))
end

local sum = ffi.new('double[1]')
function M.sum_squares(t)
  check(C.fused_sum_squares(sum, expect(t, 'sum_squares', 'input')))
  return sum[0]
end

return M
