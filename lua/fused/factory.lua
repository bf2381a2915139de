-- The factories, as PyTorch's: empty, zeros, ones, full, rand, randn (a shape, as a list or as
-- numbers, then options), tensor (nested Lua lists), and the tensors of computed values arange,
-- linspace, eye (made on the host, then moved to the device asked for). The fills are the op
-- layer's (fused/ops/copy.lua, fused/ops/random.lua).
local ffi = require 'ffi'
local tensor = require 'fused.tensor'
local dt = require 'fused.dtype'
local argcheck = require 'fused.check'
local blame = require 'fused.blame'
local copy = require 'fused.ops.copy'
local random = require 'fused.ops.random'

local M = {}
local new, parse_shape, shape_args = tensor.new, argcheck.parse_shape, argcheck.shape_args
local type_name, sequence_length, show_list = argcheck.type_name, argcheck.sequence_length, argcheck.show_list

function M.empty(...)
  local shape, opts = shape_args('empty', ...)
  local dtype, device = dt.parse(opts, 'empty')
  local ndim, sizes = parse_shape(shape, 'empty')
  return new(ndim, sizes, dtype, device)
end

-- zeros, ones, rand, randn: a new tensor, then init(t) fills it.
local function factory(fn, init)
  return function(...)
    local shape, opts = shape_args(fn, ...)
    local dtype, device = dt.parse(opts, fn)
    local ndim, sizes = parse_shape(shape, fn)
    local t = new(ndim, sizes, dtype, device)
    init(t)
    return t
  end
end
M.zeros = factory('zeros', function(t) copy.fill(t, 0) end)
M.ones = factory('ones', function(t) copy.fill(t, 1) end)
M.rand = factory('rand', function(t) random.uniform(t, 0, 1) end)
M.randn = factory('randn', function(t) random.normal(t, 0, 1) end)

-- full(shape, value, opts): the shape a list (or one number), as value follows it.
function M.full(shape, value, opts)
  local dtype, device = dt.parse(opts, 'full')
  value = argcheck.expect_scalar(value, dtype, 'full', 'value')
  local ndim, sizes = parse_shape(shape, 'full')
  local t = new(ndim, sizes, dtype, device)
  copy.fill(t, value)
  return t
end

local int64_t = ffi.typeof('int64_t')

-- What an element of each dtype is made from, and the words for it in errors.
local function int64_value(x)
  if type(x) == 'number' then return x == math.floor(x) and x >= -2 ^ 63 and x < 2 ^ 63 end
  return ffi.istype(int64_t, x)
end
local element_rules = {
  [dt.dtypes.int64] = { int64_value, "an integer in int64's range (a number or an int64_t)" },
  [dt.dtypes.bool] = { function(x) return type(x) == 'boolean' or type(x) == 'number' end,
                       'a boolean or a number (nonzero is true)' },
}
local number_rule = { function(x) return type(x) == 'number' end, 'a number' }
-- fused.tensor({{1, 2}, {3, 4}}, opts): the shape is the nesting, which must be regular. The
-- dtype is opts.dtype, else bool when the first entry is a boolean, else float32. A number (or
-- boolean, or int64_t) alone gives a 0-d tensor; {} a 1-D tensor of size 0, as in PyTorch.
function M.tensor(data, opts)
  local dtype, device = dt.parse(opts, 'tensor')
  local scalar = type(data) == 'number' or type(data) == 'boolean' or ffi.istype(int64_t, data)
  if scalar then data = { data } end
  if type(data) ~= 'table' then
    error("tensor: argument 'data' expected a number, a boolean or a nested table of them, got "
          .. type_name(data), 2)
  end
  -- The shape from the first entries; a list that is not proper counts 1 here, and walk, which
  -- checks every list, names it.
  local shape, node = {}, data
  while type(node) == 'table' do
    if #shape == argcheck.MAX_DIMS then -- {t} where t[1] is t would nest forever
      error(string.format("tensor: argument 'data' expected at most %d nested lists, got more at "
                          .. "data%s (a table that holds itself?)", argcheck.MAX_DIMS,
                          string.rep('[1]', argcheck.MAX_DIMS)), 2)
    end
    shape[#shape + 1] = sequence_length(node) or 1
    node = node[1]
  end
  if type(node) == 'boolean' and (opts == nil or opts.dtype == nil) then dtype = dt.dtypes.bool end
  local ndim, sizes = parse_shape(shape, 'tensor')
  local stored = dtype -- a dtype of bits is written as float64, then rounded once to it
  if dt.through[dtype] then dtype = dt.dtypes.float64 end
  local host = new(scalar and 0 or ndim, sizes, dtype, dt.devices.cpu)
  local p, at = ffi.cast(dt.ctypes[dtype], host.data), 0
  local takes, expected = unpack(element_rules[dtype] or number_rule)
  -- A number that rounds to an infinity in a floating dtype is refused, as fill_'s and full's
  -- (c/core/check.c's rule; float64 holds them all).
  local ranged = dt.is_floating[stored] and stored ~= dt.dtypes.float64
  -- Errors are blamed on tensor's caller: d - 1 walks and tensor itself lie in between.
  local function walk(x, d, where)
    if d > #shape then
      if not takes(x) then
        error(string.format("tensor: argument 'data' expected %s at %s (dtype %s), got %s",
                            expected, where, dt.dtype_names[stored],
                            type(x) == 'number' and tostring(x) or type_name(x)), d + 2)
      end
      if ranged and not argcheck.holds_scalar(x, stored) then
        error(string.format("tensor: argument 'data' expected a number within %s's range at %s, "
                            .. "got %s", dt.dtype_names[stored], where, tostring(x)), d + 2)
      end
      p[at] = x
      at = at + 1
      return
    end
    local n = type(x) == 'table' and sequence_length(x)
    if type(x) == 'table' and not n then
      error(string.format("tensor: argument 'data' expected a list without holes at %s, got %s",
                          where, show_list(x)), d + 2)
    end
    if n ~= shape[d] then
      error(string.format("tensor: argument 'data' is not regular: expected %d entries at %s, got %s",
                          shape[d], where, n or type_name(x)), d + 2)
    end
    for i = 1, n do walk(x[i], d + 1, where .. '[' .. i .. ']') end
  end
  walk(data, 1, 'data')
  return host:to(dt.dtype_names[stored], dt.device_names[device])
end

-- The numbers among the arguments, then an optional options table last.
local function numbers_then_options(fn, ...)
  local n, values = select('#', ...), {}
  for i = 1, n do
    local x = select(i, ...)
    if type(x) == 'number' then
      values[i] = x
    elseif i == n and (x == nil or type(x) == 'table') then
      return values, x
    elseif type(x) == 'table' then
      error(string.format("%s: expected the numbers then an options table, got an extra argument "
                          .. "%d after it: %s", fn, i + 1, argcheck.shown(select(i + 1, ...))), 3)
    else
      error(string.format("%s: argument %d expected a number (or the options table last), got %s", fn,
                          i, type_name(x)), 3)
    end
  end
  return values, nil
end

-- A host tensor of n values (value(i) for i = 0..n-1), moved to device: the factory fn's error
-- for a value dtype cannot hold (arange(0, 1e39, 5e38) in int64, linspace to 1e39 in float32),
-- as fill_'s.
local function computed(fn, n, dtype, device, value)
  if n >= 2 ^ 53 then -- more than a size holds: not empty's error, which names its 'shape'
    blame(string.format("%s: expected fewer than 2^53 values, got %s", fn, tostring(n)))
  end
  local host_dtype = dt.through[dtype] and dt.dtypes.float64 or dtype -- bits: rounded once
  local t = M.empty({ n }, { dtype = dt.dtype_names[host_dtype] })
  local p = ffi.cast(dt.ctypes[host_dtype], t.data)
  local checked = dtype ~= dt.dtypes.float64 -- which holds every Lua number
  for i = 0, n - 1 do
    local x = value(i)
    if checked and not argcheck.holds_scalar(x, dtype) then
      blame(string.format("%s: the value %s at position %d is beyond %s's range", fn, tostring(x),
                          i + 1, dt.dtype_names[dtype]))
    end
    p[i] = x
  end
  return t:to(dt.dtype_names[dtype], dt.device_names[device])
end

local function is_integer(x) return x == math.floor(x) end

-- arange(stop), arange(start, stop), arange(start, stop, step): start, start + step, ... up to
-- stop excluded, as PyTorch's; int64 when every argument is an integer, else float32.
function M.arange(...)
  local args, opts = numbers_then_options('arange', ...)
  if #args < 1 or #args > 3 then
    error(string.format("arange: expected 1 to 3 numbers (stop, or start, stop[, step]), got %d", #args), 2)
  end
  local start, stop, step = 0, args[1], 1
  if #args > 1 then start, stop, step = args[1], args[2], args[3] or 1 end
  for _, arg in ipairs({ { 'start', start }, { 'stop', stop }, { 'step', step } }) do
    if arg[2] - arg[2] ~= 0 then -- as PyTorch's "unsupported range"
      error(string.format("arange: argument '%s' expected a finite number, got %s", arg[1],
                          tostring(arg[2])), 2)
    end
  end
  if step == 0 then error("arange: argument 'step' expected a nonzero number, got 0", 2) end
  local n = math.ceil((stop - start) / step)
  if n < 0 then -- as PyTorch; an empty range (arange(0), arange(2, 2)) is an empty tensor
    error(string.format("arange: the range from %s to %s runs against the step %s",
                        tostring(start), tostring(stop), tostring(step)), 2)
  end
  local dtype, device = dt.parse(opts, 'arange')
  if (opts == nil or opts.dtype == nil) and is_integer(start) and is_integer(stop) and is_integer(step) then
    dtype = dt.dtypes.int64
  end
  return computed('arange', n, dtype, device, function(i) return start + i * step end)
end

-- linspace(start, stop, steps): steps values from start to stop, both included; float32 unless
-- opts.dtype says.
function M.linspace(...)
  local args, opts = numbers_then_options('linspace', ...)
  if #args ~= 3 then error(string.format("linspace: expected start, stop and steps, got %d numbers", #args), 2) end
  local start, stop, steps = args[1], args[2], args[3]
  if steps < 1 or not is_integer(steps) then
    error("linspace: argument 'steps' expected a positive integer, got " .. tostring(steps), 2)
  end
  local dtype, device = dt.parse(opts, 'linspace')
  local step = steps > 1 and (stop - start) / (steps - 1) or 0
  -- The second half counts back from stop, so that the last value is stop exactly.
  return computed('linspace', steps, dtype, device, function(i)
    if i < steps / 2 then return start + i * step end
    return stop - (steps - 1 - i) * step
  end)
end

-- eye(n) or eye(n, m): ones on the diagonal, zeros elsewhere.
function M.eye(...)
  local args, opts = numbers_then_options('eye', ...)
  if #args < 1 or #args > 2 then error(string.format("eye: expected n or n, m, got %d numbers", #args), 2) end
  local rows, cols = args[1], args[2] or args[1]
  for _, x in ipairs({ rows, cols }) do
    if x < 1 or not is_integer(x) then error("eye: expected positive integer sizes, got " .. tostring(x), 2) end
  end
  local dtype, device = dt.parse(opts, 'eye')
  return computed('eye', rows * cols, dtype, device, function(i)
    return i % cols == math.floor(i / cols) and 1 or 0
  end):view(rows, cols)
end

-- A factory of fixed parameters refuses an extra argument (the others take sizes or numbers
-- then options, and refuse what follows those).
M.full, M.tensor = argcheck.no_extra('full', M.full), argcheck.no_extra('tensor', M.tensor)

return M
