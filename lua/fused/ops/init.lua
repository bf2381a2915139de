-- The op layer: every op that makes a tensor, as a function (fused.add(a, b)) and a method
-- (a:add(b)), PyTorch's names; in place with a trailing underscore (a:add_(b)); {out = t} last
-- to write into t (ops/out.lua). One file per kind of op; the nn functions (LLTM, embedding,
-- cross-entropy, optimizer steps) are fused.functional.
local tensor = require 'fused.tensor'
local argcheck = require 'fused.check'
-- Methods only (t:copy_, t:fill_, t:uniform_, ...): no fused.* function but clone, made below.
local copy = require 'fused.ops.copy'
local widen = require 'fused.ops.widen'
require 'fused.ops.random'

-- The kinds that compute, whose ops take bfloat16 and float16 through float32 (ops/widen.lua).
local COMPUTING = { pointwise = true, linalg = true, reduce = true, scan = true, softmax = true,
                    unique = true }

local M = {}
for _, kind in ipairs({ 'pointwise', 'compare', 'select', 'index', 'linalg', 'reduce', 'scan',
                          'softmax', 'cat', 'tile', 'unique', 'linear_scan' }) do
  for name, f in pairs(require('fused.ops.' .. kind)) do
    f = argcheck.no_extra(name, f) -- an argument an op does not take is an error, not dropped
    M[name] = COMPUTING[kind] and widen(name, f) or f
  end
end
M.clone = argcheck.no_extra('clone', function(t)
  argcheck.expect(t, 'clone', 'input') -- as a function: the method's wrapper checks t:clone()
  return copy.clone(t)
end)

local Tensor = tensor.Tensor
-- Functions only: they take a list of tensors, or (where) mean another thing as a method in
-- PyTorch, or (the linear scans) take several tensors of equal standing.
local functions_only = { cat = true, stack = true, where = true, scan = true, scan_backward = true,
                         linear_scan = true, linear_scan_backward = true }
for name, f in pairs(M) do
  if not functions_only[name] then Tensor[name] = f end
end

-- The methods of ops/copy.lua and ops/random.lua refuse an extra argument as every op does;
-- their Torch7 names are the same functions, whose errors name them as they are.
for _, name in ipairs({ 'copy_', 'fill_', 'zero_', 'uniform_', 'normal_', 'contiguous' }) do
  Tensor[name] = argcheck.no_extra(name, Tensor[name])
end
Tensor.copy, Tensor.fill, Tensor.zero = Tensor.copy_, Tensor.fill_, Tensor.zero_
Tensor.uniform, Tensor.normal = Tensor.uniform_, Tensor.normal_
-- The tape (fused/autograd/) records every op, view and t[k] while a recorded forward runs:
-- the views' methods and indexing are defined first, to be wrapped with the ops.
require 'fused.shape'
require 'fused.indexing'
require('fused.autograd.tape').hook(M, Tensor, tensor.indexing)

local mt = tensor.metatable
mt.__add, mt.__sub, mt.__mul, mt.__div, mt.__pow = M.add, M.sub, M.mul, M.div, M.pow
mt.__unm = function(t) return M.neg(t) end -- Lua passes t twice

return M
