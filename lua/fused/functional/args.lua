-- The argument rules that the functional ops with several outputs share (lltm.lua, rnn.lua).
local blame = require 'fused.blame'
local lib = require 'fused.lib'
local options = require 'fused.options'
local argcheck = require 'fused.check'

local M = {}
M.NO_OUT = {}

-- opts.out, a list (checked: out is the only option, unless `accepted` lists others), or an
-- empty one. Errors are blamed on the op's caller.
function M.outs(opts, fn, accepted)
  if opts == nil then return M.NO_OUT end
  local o = options.check(opts, fn, accepted or { 'out' }).out
  if o == nil then return M.NO_OUT end
  if type(o) ~= 'table' then
    error(string.format("%s: option 'out' expected a list of the outputs, got %s", fn,
                        argcheck.type_name(o)), 3)
  end
  return o
end

-- The dims the output sizes are read from; the C checks say everything else.
function M.expect_dims(t, n, fn, arg)
  argcheck.expect(t, fn, arg)
  if t.ndim ~= n then
    error(string.format("%s: argument '%s' expected %d dims, got %d (shape [%s])", fn, arg, n,
                        t.ndim, table.concat(t:shape(), ', ')), 3)
  end
  return t
end

-- The sequence engine's compute option (c/fused.h's fused_compute): nil, the tensors' own
-- dtype, or 'bfloat16', every product's operands rounded to bfloat16 and accumulated in
-- float32 (float32 tensors, CPU or CUDA; docs/cells.md).
local COMPUTE = { bfloat16 = lib.C.FUSED_COMPUTE_BFLOAT16 }
function M.compute(value, fn)
  if value == nil then return lib.C.FUSED_COMPUTE_DEFAULT end
  local c = COMPUTE[value]
  if not c then
    blame(string.format("%s: option 'compute' expected 'bfloat16' or nil (the tensors' dtype), "
                        .. "got %s", fn, type(value) == 'string' and "'" .. value .. "'"
                        or tostring(value)))
  end
  return c
end

return M
