-- fused.cat({a, b, ...}, dim, {out = t}): sizes agree except along dim; fused.stack.
local ffi = require 'ffi'
local lib = require 'fused.lib'
local argcheck = require 'fused.check'
local blame = require 'fused.blame'
local out_ = require 'fused.ops.out'

local C, check, expect = lib.C, argcheck.c_status, argcheck.expect
local M = {}

local cat_inputs = ffi.typeof('const fused_tensor *[?]')
local sizes = out_.sizes()
-- list, an error naming fn unless it is a non-empty list of tensors.
local function tensors(fn, list)
  local n = type(list) == 'table' and argcheck.sequence_length(list)
  if not n or n == 0 then
    blame(string.format("%s: argument 'tensors' expected a non-empty list of tensors, got %s", fn,
                        type(list) == 'table' and argcheck.show_list(list) or argcheck.type_name(list)))
  end
  for i = 1, n do expect(list[i], fn, 'tensors[' .. i .. ']') end
  return list
end

-- cat of a checked list, its errors naming fn.
local function cat_into(fn, list, dim, out)
  local keep, at = {}, {} -- the contiguous copies must live through the call; their places
  for i, t in ipairs(list) do keep[i], at[i] = out_.contiguous(t), i end
  -- A 1-D tensor of size 0 (fused.tensor({})) joins any other as nothing, as in PyTorch.
  local parts, places = {}, {}
  for i, t in ipairs(keep) do
    if not (t.ndim == 1 and t.sizes[0] == 0) then
      local k = #parts + 1
      parts[k], places[k] = t, i
    end
  end
  if #parts > 0 then keep, at = parts, places end
  local n = #keep
  local inputs = cat_inputs(n)
  for i = 1, n do inputs[i - 1] = keep[i] end
  local first = keep[1]
  dim = argcheck.check_dim(first, dim or 1, fn)
  for d = 0, first.ndim - 1 do sizes[d] = first.sizes[d] end
  sizes[dim - 1] = 0
  for i, t in ipairs(keep) do
    argcheck.expect_like(t, first, fn, 'tensors[' .. at[i] .. ']', 'tensors[' .. at[1] .. ']')
    if t.ndim ~= first.ndim then
      blame(string.format("%s: every tensor expected %d dims (as tensors[1]), got %d", fn, first.ndim, t.ndim))
    end
    sizes[dim - 1] = sizes[dim - 1] + t.sizes[dim - 1]
  end
  local dst = out_.target(fn, out, first.ndim, sizes, first.scalar_type, first.device_type)
  check(C.fused_cat(dst, inputs, n, dim - 1))
  return out_.finish(out, dst)
end

function M.cat(list, dim, opts)
  return cat_into('cat', tensors('cat', list), dim, out_.option(opts, 'cat'))
end

-- fused.stack({a, b, ...}, dim): tensors of one shape joined along a new dim (1..ndim+1).
function M.stack(list, dim, opts)
  list = tensors('stack', list)
  local shape = table.concat(list[1]:shape(), ', ')
  for i, t in ipairs(list) do
    if table.concat(t:shape(), ', ') ~= shape then
      blame(string.format("stack: argument 'tensors[%d]' expected shape [%s] (as tensors[1]), got [%s]",
                          i, shape, table.concat(t:shape(), ', ')))
    end
  end
  dim = argcheck.check_dim(list[1]:unsqueeze(1), dim or 1, 'stack') -- 1..ndim + 1
  local out = out_.option(opts, 'stack')
  local parts = {}
  for i, t in ipairs(list) do parts[i] = t:unsqueeze(dim) end
  return cat_into('stack', parts, dim, out)
end

return M
