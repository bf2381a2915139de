-- The argument rules that the functional ops share. Every error is blamed on the user's line
-- (fused/blame.lua) and names the public function and the argument as the user wrote it.
local ffi = require 'ffi'
local blame = require 'fused.blame'
local lib = require 'fused.lib'
local dt = require 'fused.dtype'
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
    blame(string.format("%s: option 'out' expected a list of the outputs, got %s", fn,
                        argcheck.type_name(o)))
  end
  return o
end

-- The dims the output sizes are read from; the C checks say everything else.
function M.expect_dims(t, n, fn, arg)
  M.expect_floating(t, fn, arg)
  if t.ndim ~= n then
    blame(string.format("%s: argument '%s' expected %d dims, got %d (shape [%s])", fn, arg, n,
                        t.ndim, table.concat(t:shape(), ', ')))
  end
  return t
end

-- The nn functions and modules compute in float32 and float64 only (docs/nn.md): x must be a
-- tensor of one of those. bfloat16 and float16 are refused with the conversion to make, rather
-- than computed in another dtype than the one the caller holds.
function M.expect_floating(x, fn, arg)
  argcheck.expect(x, fn, arg)
  if not dt.computes_floating[x.scalar_type] then
    blame(string.format("%s: argument '%s' expected %s, got %s%s", fn, arg, dt.floating_names(),
                        dt.dtype_names[x.scalar_type], dt.through[x.scalar_type]
                        and ' (the nn modules and functions take no 16-bit tensors: convert with '
                        .. ':float())' or ''))
  end
  return x
end

-- As expect_floating, for an argument that may be nil.
function M.optional_floating(x, fn, arg)
  if x ~= nil then M.expect_floating(x, fn, arg) end
  return x
end

-- The engine's reverse option: nil or a boolean (a 0 would be true in Lua), as 1 or 0.
function M.reverse(value, fn)
  if value ~= nil and type(value) ~= 'boolean' then
    blame(string.format("%s: option 'reverse' expected a boolean, got %s", fn,
                        argcheck.type_name(value)))
  end
  return value and 1 or 0
end

-- The option 'heads' (nil: 1) of a recurrent layer of H units: a positive integer dividing H,
-- the number of blocks of a block-diagonal w_hh (docs/cells.md, Heads).
function M.heads(value, H, fn)
  if value == nil then return 1 end
  if type(value) ~= 'number' or value < 1 or value ~= math.floor(value) then
    blame(string.format("%s: option 'heads' expected a positive integer, got %s", fn,
                        type(value) == 'number' and tostring(value) or argcheck.type_name(value)))
  end
  if H % value ~= 0 then
    blame(string.format("%s: option 'heads' expected a divisor of the hidden size %d, got %d", fn,
                        H, value))
  end
  return value
end

-- What forward returned a ctx, set in it, checked by the backwards: a ctx of another forward
-- holds other fields, and would fail inside (ctx.kind = the forward's name).
function M.expect_ctx(ctx, fn, forward)
  if type(ctx) ~= 'table' or ctx.kind ~= forward then
    blame(string.format("%s: argument 'ctx' expected the ctx returned by %s, got %s", fn, forward,
                        type(ctx) == 'table' and ctx.kind and 'the ctx of ' .. ctx.kind
                        or argcheck.type_name(ctx)))
  end
  return ctx
end

-- The ctx in out[i] for forward fn to refill: nil (a new one), or a table that is not another
-- forward's ctx.
function M.out_ctx(ctx, fn, i)
  if ctx == nil then return {} end
  if type(ctx) ~= 'table' or argcheck.is_tensor(ctx) or (ctx.kind and ctx.kind ~= fn) then
    blame(string.format("%s: option 'out' expected a ctx of %s at position %d, got %s", fn, fn, i,
                        type(ctx) == 'table' and ctx.kind and 'the ctx of ' .. ctx.kind
                        or argcheck.type_name(ctx)))
  end
  return ctx
end

-- Raises "fn: expected at most n arguments, got m" when a public function of n parameters was
-- given more: ... holds what came after its last; trailing nils count for nothing.
-- The number of arguments up to the last that is not nil.
function M.count(...)
  local n = select('#', ...)
  while n > 0 and select(n, ...) == nil do n = n - 1 end
  return n
end

function M.no_more(fn, n, ...)
  local m = M.count(...)
  if m > 0 then
    blame(string.format('%s: expected at most %d arguments, got %d', fn, n, n + m))
  end
end

-- Raises C's last error as fn's (the public function's), at the user's line, the C function's
-- argument names replaced by the caller's (names[C's] = the user's), unless rc is 0.
function M.check(rc, fn, names)
  if rc == 0 then return end
  local message = ffi.string(lib.C.fused_last_error()):gsub('^[%w_]+:', fn .. ':', 1)
  blame((message:gsub("'([%w_]+)'", function(n) return "'" .. (names and names[n] or n) .. "'" end)))
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
