-- Argument rules, the Lua twin of c/core/check.c: each raises "fn: argument 'arg' expected
-- ..., got ..." at the user's line (fused/blame.lua) unless the value fits. Where C holds the
-- rule (a writable tensor, a scalar a dtype can hold) this asks C, so that the words are C's.
local ffi = require 'ffi'
local lib = require 'fused.lib'
local dt = require 'fused.dtype'
local blame = require 'fused.blame'

local C = lib.C
local M = {}

local tensor_t = ffi.typeof('fused_tensor')
local sizes_buf = ffi.new('int64_t[8]')
local MAX_DIMS = 8 -- C's FUSED_MAX_DIMS
M.MAX_DIMS = MAX_DIMS

function M.is_tensor(x) return ffi.istype(tensor_t, x) end

-- What x is, for "got ..." in errors.
local function type_name(x)
  if ffi.istype(tensor_t, x) then return 'tensor' end
  return type(x) == 'cdata' and tostring(ffi.typeof(x)) or type(x)
end
M.type_name = type_name

-- Raises C's last error at the user's line unless rc is 0: lib.check's job, for an op that
-- library code reaches (a factory, to(), t[i] = v), where lib.check's fixed level would blame
-- a line inside lua/fused/.
function M.c_status(rc)
  if rc ~= 0 then blame(lib.last_error()) end
end

-- Raises "fn: argument 'arg' expected a tensor, got <type>" unless x is one.
function M.expect(x, fn, arg)
  if not ffi.istype(tensor_t, x) then
    blame(string.format("%s: argument '%s' expected a tensor, got %s", fn, arg, type_name(x)))
  end
  return x
end

-- As expect, for a tensor the op fn writes: C's error unless no two of its elements share
-- memory (an expanded view does; PyTorch refuses the write too: clone() first).
function M.expect_writable(x, fn, arg)
  M.expect(x, fn, arg)
  M.c_status(C.fused_check_writable(fn, arg, x))
  return x
end

-- Raises "fn: argument 'arg' expected a number, got <type>" unless x is one.
local function expect_number(x, fn, arg)
  if type(x) ~= 'number' then
    blame(string.format("%s: argument '%s' expected a number, got %s", fn, arg, type_name(x)))
  end
  return x
end
M.expect_number = expect_number

-- A number (or a boolean, as 1 or 0) that fn writes into a tensor of dtype (an id): C's error
-- unless it is exactly one of the dtype's values (no int64 from 0.5 or NaN, no bool from 2).
function M.expect_scalar(x, dtype, fn, arg)
  if type(x) == 'boolean' then x = x and 1 or 0 end
  expect_number(x, fn, arg)
  M.c_status(C.fused_check_scalar(fn, arg, x, dtype))
  return x
end

-- Raises C's words for an operand x (named arg) that must have ref's (named ref_arg) device
-- and dtype: "fn: argument 'arg' expected device cuda (as 'a'), got cpu".
function M.expect_like(x, ref, fn, arg, ref_arg)
  if x.device_type ~= ref.device_type then
    blame(string.format("%s: argument '%s' expected device %s (as '%s'), got %s", fn, arg,
                        dt.device_names[ref.device_type], ref_arg, dt.device_names[x.device_type]))
  end
  if x.scalar_type ~= ref.scalar_type then
    blame(string.format("%s: argument '%s' expected dtype %s (as '%s'), got %s", fn, arg,
                        dt.dtype_names[ref.scalar_type], ref_arg, dt.dtype_names[x.scalar_type]))
  end
  return x
end

-- Whether a number is one of dtype's values, by expect_scalar's rule (without raising).
function M.holds_scalar(x, dtype)
  return C.fused_check_scalar('holds_scalar', 'x', x, dtype) == 0
end

-- Raises "fn: argument 'arg' expected dtype <name>, got <name>" unless tensor x has that dtype
-- (a name): what an index or a class target gets, which a float tensor must not silently be.
function M.expect_dtype(x, name, fn, arg)
  M.expect(x, fn, arg)
  if x.scalar_type ~= dt.dtypes[name] then
    blame(string.format("%s: argument '%s' expected dtype %s, got %s", fn, arg, name,
                        dt.dtype_names[x.scalar_type]))
  end
  return x
end

-- n when the keys of list are exactly 1..n, else nil: Lua's # on a table with a hole
-- ({2, nil, 3}) may give either border, and would drop entries silently.
local function sequence_length(list)
  local n, max = 0, 0
  for k in pairs(list) do
    if type(k) ~= 'number' or k < 1 or k ~= math.floor(k) then return nil end
    n, max = n + 1, math.max(max, k)
  end
  return n == max and n or nil
end
M.sequence_length = sequence_length

-- A list as it reads in Lua source, "{2, nil, 3}", for errors (its first 10 entries).
local function show_list(list)
  for k in pairs(list) do
    if type(k) ~= 'number' or k < 1 or k ~= math.floor(k) then
      return string.format('a table with the key %s', type(k) == 'string' and "'" .. k .. "'" or tostring(k))
    end
  end
  local parts, n = {}, table.maxn(list)
  for i = 1, math.min(n, 10) do
    local x = list[i]
    parts[i] = (type(x) == 'number' or x == nil) and tostring(x)
      or type(x) == 'string' and string.format('%q', x) or type_name(x)
  end
  if n > 10 then parts[#parts + 1] = '...' end
  return '{' .. table.concat(parts, ', ') .. '}'
end
M.show_list = show_list

-- An index given as a Lua list (fused.tensor makes it an int64 tensor): its entries integers
-- (or lists of them, nested), or fn's error naming arg.
local function integers(list)
  local n = sequence_length(list)
  for i = 1, n or 0 do
    local x = list[i]
    local ok = type(x) == 'table' and integers(x)
      or type(x) == 'number' and x == math.floor(x) and math.abs(x) < 2 ^ 63
      or ffi.istype('int64_t', x)
    if not ok then return false end
  end
  return n ~= nil
end
function M.expect_index_list(list, fn, arg)
  if not integers(list) then
    blame(string.format("%s: argument '%s' expected an int64 tensor or a list of integers, got %s",
                        fn, arg, show_list(list)))
  end
  return list
end

-- Sizes are exact integers in a double and in int64_t below this; C checks their product.
local MAX_SIZE = 2 ^ 53

-- shape: a list of sizes >= 0 ({}: a 0-d tensor of one element; a size 0: an empty tensor), or
-- one number. Returns ndim and an int64_t array of the sizes (a buffer the next call
-- overwrites).
function M.parse_shape(shape, fn)
  if type(shape) == 'number' then shape = { shape } end
  if type(shape) ~= 'table' then
    blame(string.format("%s: argument 'shape' expected a list of sizes, got %s", fn, type_name(shape)))
  end
  local n = sequence_length(shape)
  if not n then
    blame(string.format("%s: argument 'shape' expected a list of integers >= 0, got %s", fn,
                        show_list(shape)))
  end
  if n > MAX_DIMS then
    blame(string.format("%s: argument 'shape' expected 0 to %d sizes, got %d", fn, MAX_DIMS, n))
  end
  for i = 1, n do
    local s = shape[i]
    if type(s) ~= 'number' or not (s >= 0 and s < MAX_SIZE) or s ~= math.floor(s) then
      blame(string.format("%s: argument 'shape' expected integer sizes from 0 to below 2^53, got %s at position %d",
                          fn, type(s) == 'number' and tostring(s) or type_name(s), i))
    end
    sizes_buf[i - 1] = s
  end
  return n, sizes_buf
end

-- The sizes of a factory, as a list or as numbers: (shape, opts) or (n1, n2, ..., opts).
-- Returns the shape and the options; anything after the options is an error.
function M.shape_args(fn, first, ...)
  local rest = select('#', ...)
  if type(first) ~= 'number' then
    if rest > 1 then
      error(string.format("%s: expected the sizes then an options table, got %d arguments after them",
                          fn, rest), 3)
    end
    return first, ...
  end
  local shape = { first }
  for i = 1, rest do
    local x = select(i, ...)
    if type(x) ~= 'number' then
      if i < rest then
        error(string.format("%s: expected the sizes then an options table, got %s at argument %d",
                            fn, type_name(x), i + 1), 3)
      end
      return shape, x
    end
    shape[i + 1] = x
  end
  return shape, nil
end

-- dim is 1-based; negative counts from the end, as in Torch.
function M.check_dim(t, dim, fn, arg)
  arg = arg or 'dim'
  if type(dim) ~= 'number' or dim ~= math.floor(dim) or dim == 0 or dim > t.ndim or dim < -t.ndim then
    if t.ndim == 0 then
      blame(string.format("%s: argument '%s' expected no dim, as the tensor is 0-d (it has no dims), got %s",
                          fn, arg, type(dim) == 'number' and tostring(dim) or type_name(dim)))
    end
    blame(string.format("%s: argument '%s' expected a dim in 1..%d, got %s", fn, arg, t.ndim,
                        type(dim) == 'number' and tostring(dim) or type_name(dim)))
  end
  return dim < 0 and t.ndim + dim + 1 or dim
end

-- What x is and holds, for an error about an argument the user passed: "the number -0.01".
local function shown(x)
  if type(x) == 'number' or type(x) == 'boolean' then return 'the ' .. type(x) .. ' ' .. tostring(x) end
  if type(x) == 'string' then return string.format('the string %q', x) end
  return 'a ' .. type_name(x)
end
M.shown = shown

-- f (the public function fn) refusing a positional argument it has no parameter for, as Python
-- refuses one: p:add_(g, -lr) must not drop -lr. A trailing nil counts as absent, as Lua has
-- it. A function of varargs checks its own arguments.
function M.no_extra(fn, f)
  local info = debug.getinfo(f, 'u')
  if info.isvararg then return f end
  local n = info.nparams
  local params = {}
  for i = 1, n do params[i] = debug.getlocal(f, i) end
  local takes = table.concat(params, ', ')
  return function(...)
    for i = n + 1, select('#', ...) do
      local x = select(i, ...)
      if x ~= nil then
        blame(string.format("%s: takes (%s), got an extra argument %d: %s", fn, takes, i,
                            shown(x)))
      end
    end
    return f(...)
  end
end

return M
