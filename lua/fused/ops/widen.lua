-- bfloat16 and float16 compute as PyTorch's CPU computes them: an op widens its 16-bit operands
-- to float32 (exactly), computes in float32 and rounds each floating result once to the 16-bit
-- dtype, a number result too (PyTorch's 0-d result, as item() gives it; argmax's and argmin's
-- are indices). The result's dtype is PyTorch's promotion: a 16-bit tensor with numbers, int64
-- or bool tensors or 0-d floating ones stays 16-bit; two different 16-bit dtypes, or one with
-- a dimensioned float32 or float64, give the wider computing dtype. An in-place op keeps its tensor's dtype (self receives the
-- rounded result); {out = t} (or sort's and max's {out = {values, indices}}) of a 16-bit result
-- receives it through a float32 stand-in that the op writes, so that the op checks its options
-- as for any dtype and out_.target checks out itself. ops/init.lua wraps the computing kinds of
-- ops; selection, copies and comparisons take 16-bit tensors as they are. The temporaries cost
-- a float32 copy per 16-bit operand and one conversion per result: the 16-bit dtypes are for
-- storage and checkpoints, the sequence engine's products are bfloat16's fast path
-- (compute = 'bfloat16', docs/cells.md).
local argcheck = require 'fused.check'
local blame = require 'fused.blame'
local dt = require 'fused.dtype'
local factory = require 'fused.factory'
local lib = require 'fused.lib'
local out_ = require 'fused.ops.out'
local tensor = require 'fused.tensor'

-- Where the library's files are, as error positions name them ('lua/fused/').
local LIBRARY = debug.getinfo(1, 'S').source:match('^@(.*/)ops/[^/]*$')

local is_tensor, through, is_floating = argcheck.is_tensor, dt.through, dt.is_floating
local FLOAT32 = dt.dtypes.float32
-- The ops whose number result is an index, not a value to round.
local INDEX_RESULT = { argmax = true, argmin = true }

local function is16(x) return is_tensor(x) and through[x.scalar_type] ~= nil end
-- An options table whose out, or an element of its out list, is 16-bit.
local function out16(x)
  if type(x) ~= 'table' then return false end
  local o = x.out
  return is16(o) or (type(o) == 'table' and (is16(o[1]) or is16(o[2])))
end
local function any(x) return is16(x) or out16(x) end

local function any16(n, ...)
  local a, b, c, d = ...
  if any(a) or any(b) or any(c) or any(d) then return true end
  for i = 5, n do
    if any((select(i, ...))) then return true end
  end
  return false
end

-- The 16-bit dtype that the results of an op on args round to, or nil: that of its floating
-- tensors, the dimensioned ones where there are any (a 0-d float32 leaves a bfloat16 matrix
-- bfloat16, as PyTorch's result_type).
local function narrow_dtype(args)
  local found, dimensioned = nil, false
  for i = 1, args.n do
    local a = args[i]
    dimensioned = dimensioned or is_tensor(a) and is_floating[a.scalar_type] and a.ndim > 0
  end
  for i = 1, args.n do
    local a = args[i]
    if is_tensor(a) and is_floating[a.scalar_type] and (a.ndim > 0 or not dimensioned) then
      if not through[a.scalar_type] or (found and found ~= a.scalar_type) then return nil end
      found = a.scalar_type
    end
  end
  return found
end

-- opts with each floating tensor of its out (or out list) replaced by a float32 stand-in of its
-- shape, recorded in outs as {stand-in, out} pairs.
local function with_stand_ins(opts, outs)
  local function stand_in(o)
    if not (is_tensor(o) and is_floating[o.scalar_type]) then return o end
    local s = tensor.empty_like(o, FLOAT32)
    outs[#outs + 1] = { s, o }
    return s
  end
  local copy = {}
  for k, v in pairs(opts) do copy[k] = v end
  local o = opts.out
  if type(o) == 'table' then
    copy.out = {}
    for k, v in pairs(o) do copy.out[k] = stand_in(v) end
  else
    copy.out = stand_in(o)
  end
  return copy
end

-- The op's results rounded to dtype: a stand-in's into its out, the other float32 tensors into
-- new ones, numbers through a one-element tensor of dtype; indices as they are.
local function narrowed(name, dtype, outs, ...)
  local results = { n = select('#', ...), ... }
  local dtype_name = dt.dtype_names[dtype]
  for i = 1, results.n do
    local r, out = results[i], nil
    for _, pair in ipairs(outs) do
      if rawequal(r, pair[1]) then out = pair[2] end
    end
    if out then
      local dst = out_.target(name, out, r.ndim, r.sizes, dtype, r.device_type)
      argcheck.c_status(lib.C.fused_copy(dst, r))
      results[i] = out_.finish(out, dst)
    elseif is_tensor(r) and r.scalar_type == FLOAT32 then
      results[i] = r:to(dtype_name)
    elseif type(r) == 'number' and not INDEX_RESULT[name] then
      results[i] = factory.full({ 1 }, r, { dtype = dtype_name }):item()
    end
  end
  return unpack(results, 1, results.n)
end

-- f's results, or its error raised again at the user's line: a level that f counted to its
-- caller lands in this file, whose frame sits between f and the user on this path.
local function rethrow(ok, ...)
  if ok then return ... end
  local message = ...
  if type(message) == 'string' then
    local where, text = message:match('^([^:]*):%d+: (.*)$')
    if not where then blame(message) end -- its level reached pcall, which has no line
    if where:sub(1, #LIBRARY) == LIBRARY then blame(text) end
  end
  error(message, 0)
end
local function call(f, ...) return rethrow(pcall(f, ...)) end

-- The op `name` (f) taking 16-bit tensors.
return function(name, f)
  local inplace = name:sub(-1) == '_'
  local function rounded(dtype, outs, ...) return narrowed(name, dtype, outs, f(...)) end
  return function(...)
    local n = select('#', ...)
    if not any16(n, ...) then return f(...) end
    local args, wide = { n = n, ... }, { n = n }
    for i = 1, n do wide[i] = is16(args[i]) and args[i]:float() or args[i] end
    if inplace and is16(args[1]) then
      argcheck.expect_writable(args[1], name, 'self') -- before f writes into its float32 copy
      call(f, unpack(wide, 1, n))
      argcheck.c_status(lib.C.fused_copy(args[1], wide[1]))
      return args[1]
    end
    local dtype = narrow_dtype(args)
    if not dtype then return call(f, unpack(wide, 1, n)) end -- a 16-bit out is f's error
    local outs = {}
    for i = 1, n do
      if type(wide[i]) == 'table' and wide[i].out ~= nil then
        wide[i] = with_stand_ins(wide[i], outs)
      end
    end
    return call(rounded, dtype, outs, unpack(wide, 1, n))
  end
end
