-- t:repeatTensor(sizes...) is PyTorch's Tensor.repeat (also fused['repeat'] and t['repeat'],
-- the name PyTorch gives it, which Lua's keyword keeps out of method syntax; Torch7 called it
-- repeatTensor): a copy of t tiled sizes[d] times along each dim d, with leading dims added
-- when there are more sizes than dims ({2, 3} of shape {2, 3} is {4, 9}; {2, 1, 1} of it
-- {2, 2, 3}). Sizes as a list or as numbers, each >= 1; {out = t} last.
local lib = require 'fused.lib'
local argcheck = require 'fused.check'
local blame = require 'fused.blame'
local out_ = require 'fused.ops.out'
local cat = require('fused.ops.cat').cat

local M = {}
local MAX_DIMS = 8

local function tile(t, ...)
  local fn = 'repeat'
  argcheck.expect(t, fn, 'input')
  local sizes, opts = argcheck.shape_args(fn, ...)
  local n = type(sizes) == 'table' and argcheck.sequence_length(sizes)
  local fits = n and n >= t.ndim and n <= MAX_DIMS
  for d = 1, fits and n or 0 do
    local s = sizes[d]
    fits = fits and type(s) == 'number' and s >= 1 and s == math.floor(s)
  end
  if not fits then
    blame(string.format("%s: argument 'sizes' expected %d to %d positive integers (at least one "
                        .. "per dim), got %s", fn, t.ndim, MAX_DIMS,
                        type(sizes) == 'table' and argcheck.show_list(sizes)
                        or argcheck.type_name(sizes)))
  end
  local shape = t:shape()
  for _ = t.ndim + 1, n do table.insert(shape, 1, 1) end
  local r, copied = t:reshape(shape), false
  for d = 1, n do
    if sizes[d] > 1 then
      local copies = {}
      for k = 1, sizes[d] do copies[k] = r end
      r, copied = cat(copies, d), true
    end
  end
  local out = out_.option(opts, fn)
  if out == nil then return copied and r or r:clone() end -- a copy even of all ones, as PyTorch's
  local dst = out_.target(fn, out, r.ndim, r.sizes, r.scalar_type, r.device_type)
  argcheck.c_status(lib.C.fused_copy(dst, r))
  return out_.finish(out, dst)
end
M['repeat'] = tile
M.repeatTensor = tile

return M
