-- bfloat16 and float16 compute as PyTorch's CPU computes them: an op widens its 16-bit operands
-- to float32 (exactly), computes in float32 and rounds each floating result once to the 16-bit
-- dtype. The result's dtype is PyTorch's promotion: a 16-bit tensor with numbers, int64 or bool
-- tensors stays 16-bit; two different 16-bit dtypes, or one with float32 or float64, give the
-- wider computing dtype. An in-place op keeps its tensor's dtype (self receives the rounded
-- result); {out = t} of a 16-bit dtype receives it as out= does (ops/out.lua). ops/init.lua
-- wraps the computing kinds of ops; selection, copies and comparisons take 16-bit tensors as
-- they are. The temporaries cost a float32 copy per 16-bit operand: the 16-bit dtypes are for
-- storage and checkpoints, the sequence engine's products are bfloat16's fast path
-- (compute = 'bfloat16', docs/cells.md).
local argcheck = require 'fused.check'
local blame = require 'fused.blame'
local dt = require 'fused.dtype'
local out_ = require 'fused.ops.out'
local lib = require 'fused.lib'

-- Where the library's files are, as error positions name them ('lua/fused/').
local LIBRARY = debug.getinfo(1, 'S').source:match('^@(.*/)ops/[^/]*$')

local is_tensor, through = argcheck.is_tensor, dt.through
local FLOAT32 = dt.dtypes.float32

local function is16(x) return is_tensor(x) and through[x.scalar_type] ~= nil end
-- An options table whose out is 16-bit.
local function out16(x) return type(x) == 'table' and is16(x.out) end
local function any(x) return is16(x) or out16(x) end

local function any16(n, ...)
  local a, b, c, d = ...
  if any(a) or any(b) or any(c) or any(d) then return true end
  for i = 5, n do
    if any((select(i, ...))) then return true end
  end
  return false
end

-- The 16-bit dtype that the results of an op on args round to, or nil.
local function narrow_dtype(args)
  local found
  for i = 1, args.n do
    local a = args[i]
    if is_tensor(a) and dt.is_floating[a.scalar_type] then
      if not through[a.scalar_type] or (found and found ~= a.scalar_type) then return nil end
      found = a.scalar_type
    end
  end
  return found
end

-- The results of f, each float32 tensor rounded to dtype (indices and numbers as they are).
local function narrowed(dtype, ...)
  local results = { n = select('#', ...), ... }
  for i = 1, results.n do
    local r = results[i]
    if is_tensor(r) and r.scalar_type == FLOAT32 then results[i] = r:to(dt.dtype_names[dtype]) end
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
  return function(...)
    local n = select('#', ...)
    if not any16(n, ...) then return f(...) end
    local args, out = { n = n, ... }, nil
    local wide = { n = n }
    for i = 1, n do
      local a = args[i]
      if is16(a) then
        wide[i] = a:float()
      elseif type(a) == 'table' and is_tensor(a.out) then -- computed without it, then copied
        wide[i], out = {}, a.out
        for k, v in pairs(a) do if k ~= 'out' then wide[i][k] = v end end
      else
        wide[i] = a
      end
    end
    if inplace and is16(args[1]) then
      argcheck.expect_writable(args[1], name, 'self') -- before f writes into its float32 copy
      call(f, unpack(wide, 1, n))
      lib.check(lib.C.fused_copy(args[1], wide[1]))
      return args[1]
    end
    local dtype = narrow_dtype(args)
    if not out then
      if not dtype then return call(f, unpack(wide, 1, n)) end
      return narrowed(dtype, call(f, unpack(wide, 1, n)))
    end
    local r = call(f, unpack(wide, 1, n))
    if dtype then r = narrowed(dtype, r) end
    local dst = out_.result(name, out, r.ndim, r.sizes, r.scalar_type, r.device_type)
    lib.check(lib.C.fused_copy(dst, r))
    return dst
  end
end
