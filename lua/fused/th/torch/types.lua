-- Torch7's tensor types inside `fused th`: the type strings ('torch.FloatTensor',
-- 'torch.CudaTensor'), the constructors (torch.FloatTensor(2, 3), torch.Tensor(...), which
-- makes the default type: DoubleTensor, as Torch7, until torch.setdefaulttensortype), and the
-- integer classes. fused has float32, float64, int64 and bool: Torch7's ByteTensor, CharTensor,
-- ShortTensor and IntTensor make int64 tensors whose values are checked against the class's
-- range when made from a table, and bool (what comparisons give, Torch7's ByteTensor masks)
-- says 'torch.ByteTensor'. docs/torch7.md, "Tensor types".
local ffi = require 'ffi'
local fused = require 'fused'
local argcheck = require 'fused.check'

local M = {}
local tensor_t = ffi.typeof('fused_tensor')

-- The type string of each (dtype, device), and what each type string makes.
local NAMES = {
  cpu = { float32 = 'torch.FloatTensor', float64 = 'torch.DoubleTensor', int64 = 'torch.LongTensor',
          bool = 'torch.ByteTensor', float16 = 'torch.HalfTensor', bfloat16 = 'torch.BFloat16Tensor' },
  cuda = { float32 = 'torch.CudaTensor', float64 = 'torch.CudaDoubleTensor', int64 = 'torch.CudaLongTensor',
           bool = 'torch.CudaByteTensor', float16 = 'torch.CudaHalfTensor', bfloat16 = 'torch.CudaBFloat16Tensor' },
}
-- Class name -> dtype, device and (integers) the range a value of the class takes.
local CLASSES = {}
for device, names in pairs(NAMES) do
  for dtype, name in pairs(names) do CLASSES[name] = { dtype = dtype, device = device } end
end
local INTEGER_RANGES = { Byte = { 0, 255 }, Char = { -128, 127 }, Short = { -2 ^ 15, 2 ^ 15 - 1 },
                         Int = { -2 ^ 31, 2 ^ 31 - 1 } }
for prefix, range in pairs(INTEGER_RANGES) do
  CLASSES['torch.' .. prefix .. 'Tensor'] = { dtype = 'int64', device = 'cpu', range = range }
  CLASSES['torch.Cuda' .. prefix .. 'Tensor'] = { dtype = 'int64', device = 'cuda', range = range }
end
M.CLASSES = CLASSES

function M.is_tensor(x) return ffi.istype(tensor_t, x) end

function M.name_of(t) return NAMES[t.device][t.dtype] end

-- The dtype and device of a class name, or fn's error.
function M.parse(name, fn)
  local class = CLASSES[name]
  if not class then
    local known = {}
    for n in pairs(CLASSES) do known[#known + 1] = n end
    table.sort(known)
    error(string.format("%s: argument 'type' expected a tensor type (%s), got %s", fn,
                        table.concat(known, ', '), type(name) == 'string' and "'" .. name .. "'"
                          or argcheck.type_name(name)), 3)
  end
  return class.dtype, class.device
end

local default = 'torch.DoubleTensor'
function M.default() return default end
function M.set_default(name)
  local class = CLASSES[name]
  if not class or class.device ~= 'cpu' or (class.dtype ~= 'float32' and class.dtype ~= 'float64') then
    error(string.format("torch.setdefaulttensortype: argument 'type' expected 'torch.FloatTensor' or "
                        .. "'torch.DoubleTensor', got %s", tostring(name)), 3)
  end
  default = name
end

local function check_range(name, class, values)
  local lo, hi = class.range[1], class.range[2]
  local function walk(v)
    if type(v) == 'table' then
      for _, x in ipairs(v) do walk(x) end
    elseif type(v) == 'number' and (v < lo or v > hi or v ~= math.floor(v)) then
      error(string.format("%s: expected whole numbers in %d..%d, got %s", name, lo, hi, tostring(v)), 4)
    end
  end
  walk(values)
end

-- Torch7's constructor forms: (), (sizes...), (a size), (a table of values), (a tensor: a view
-- of it, as Torch7's torch.Tensor(t) shared t's storage).
local function make(name, ...)
  local class = CLASSES[name]
  local opts = { dtype = class.dtype, device = class.device }
  local n, first = select('#', ...), ...
  if n == 0 then return fused.zeros({ 0 }, opts) end
  if M.is_tensor(first) and n == 1 then return first:view(first:shape()) end
  if type(first) == 'table' and n == 1 and getmetatable(first) == nil and type(first[1]) ~= 'number' and #first > 0
      and type(first[1]) ~= 'table' then
    error(string.format("%s: argument 1 expected sizes, a table of values or a tensor, got a table of %s",
                        name, type(first[1])), 3)
  end
  if type(first) == 'table' and n == 1 and getmetatable(first) == nil then
    if class.range then check_range(name, class, first) end
    return fused.tensor(first, opts)
  end
  local sizes = type(first) == 'table' and first or { ... }
  for i = 1, #sizes do
    if type(sizes[i]) ~= 'number' then
      error(string.format("%s: argument %d expected a size (a number), got %s", name, i,
                          argcheck.type_name(sizes[i])), 3)
    end
  end
  return fused.zeros(sizes, opts)
end

-- The constructor of a class: torch.FloatTensor(...), or torch.Tensor's, which follows the
-- default type.
function M.constructor(name)
  return function(...) return make(name, ...) end
end
function M.default_constructor(...) return make(default, ...) end

-- The constructor that makes tensors of t's type (t:new()).
function M.constructor_of(t) return M.constructor(M.name_of(t)) end

return M
