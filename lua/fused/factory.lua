-- Tensors of computed values, as PyTorch's: arange, linspace, eye. Made on the host, then moved
-- to the device asked for.
local ffi = require 'ffi'
local tensor = require 'fused.tensor'
local dt = require 'fused.dtype'

local M = {}

-- The numbers among the arguments, then an optional options table last.
local function numbers_then_options(fn, ...)
  local n, values = select('#', ...), {}
  for i = 1, n do
    local x = select(i, ...)
    if type(x) == 'number' then
      values[i] = x
    elseif i == n and (x == nil or type(x) == 'table') then
      return values, x
    else
      error(string.format("%s: argument %d expected a number (or the options table last), got %s", fn,
                          i, tensor.type_name(x)), 3)
    end
  end
  return values, nil
end

-- A host tensor of n values (value(i) for i = 0..n-1), moved to device.
local function computed(n, dtype, device, value)
  local t = tensor.empty({ n }, { dtype = dt.dtype_names[dtype] })
  local p = ffi.cast(dt.ctypes[dtype], t.data)
  for i = 0, n - 1 do p[i] = value(i) end
  return t:to(dt.device_names[device])
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
  return computed(n, dtype, device, function(i) return start + i * step end)
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
  return computed(steps, dtype, device, function(i)
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
  return computed(rows * cols, dtype, device, function(i)
    return i % cols == math.floor(i / cols) and 1 or 0
  end):view(rows, cols)
end

return M
