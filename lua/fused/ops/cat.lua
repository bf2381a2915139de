-- fused.cat({a, b, ...}, dim, {out = t}): sizes agree except along dim; fused.stack.
local ffi = require 'ffi'
local lib = require 'fused.lib'
local argcheck = require 'fused.check'
local out_ = require 'fused.ops.out'

local C, check, expect = lib.C, lib.check, argcheck.expect
local M = {}

local cat_inputs = ffi.typeof('const fused_tensor *[?]')
local sizes = out_.sizes()
function M.cat(list, dim, opts)
  local n = type(list) == 'table' and argcheck.sequence_length(list)
  if not n or n == 0 then
    error("cat: argument 'tensors' expected a non-empty list of tensors, got "
          .. (type(list) == 'table' and argcheck.show_list(list) or argcheck.type_name(list)), 2)
  end
  local keep = {} -- the contiguous copies must live through the call
  for i, t in ipairs(list) do keep[i] = out_.contiguous(expect(t, 'cat', 'tensors[' .. i .. ']')) end
  -- A 1-D tensor of size 0 (fused.tensor({})) joins any other as nothing, as in PyTorch.
  local parts = {}
  for _, t in ipairs(keep) do
    if not (t.ndim == 1 and t.sizes[0] == 0) then parts[#parts + 1] = t end
  end
  if #parts > 0 then keep, n = parts, #parts end
  local inputs = cat_inputs(n)
  for i = 1, n do inputs[i - 1] = keep[i] end
  local first = keep[1]
  dim = argcheck.check_dim(first, dim or 1, 'cat')
  for d = 0, first.ndim - 1 do sizes[d] = first.sizes[d] end
  sizes[dim - 1] = 0
  for _, t in ipairs(keep) do
    if t.ndim ~= first.ndim then
      error(string.format("cat: every tensor expected %d dims (as tensors[1]), got %d", first.ndim, t.ndim), 2)
    end
    sizes[dim - 1] = sizes[dim - 1] + t.sizes[dim - 1]
  end
  local out = out_.option(opts, 'cat')
  local dst = out_.target('cat', out, first.ndim, sizes, first.scalar_type, first.device_type)
  check(C.fused_cat(dst, inputs, n, dim - 1))
  return out_.finish(out, dst)
end

-- fused.stack({a, b, ...}, dim): tensors of one shape joined along a new dim (1..ndim+1).
function M.stack(list, dim, opts)
  local n = type(list) == 'table' and argcheck.sequence_length(list)
  if not n or n == 0 then
    error("stack: argument 'tensors' expected a non-empty list of tensors, got "
          .. (type(list) == 'table' and argcheck.show_list(list) or argcheck.type_name(list)), 2)
  end
  local parts = {}
  for i, t in ipairs(list) do parts[i] = expect(t, 'stack', 'tensors[' .. i .. ']'):unsqueeze(dim or 1) end
  return M.cat(parts, dim or 1, opts)
end

return M
