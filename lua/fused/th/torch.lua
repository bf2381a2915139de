-- Torch7's `torch` package inside `fused th` (lua/fused/th/init.lua): the class functions, the
-- tensor types and constructors (th/torch/types.lua), the maths as functions
-- (th/torch/functions.lua), random numbers, Timer, CmdLine and the small utilities Torch7's
-- programs call. Tensor methods take Torch7's meanings while `fused th` runs
-- (th/torch/tensor.lua). docs/torch7.md.
local ffi = require 'ffi'
local blame = require 'fused.blame'
local fused = require 'fused'
local class = require 'fused.th.class'
local types = require 'fused.th.torch.types'
local functions = require 'fused.th.torch.functions'
local random = require 'fused.th.torch.random'

local torch = {}

torch.class = class.class
torch.getmetatable = class.metatable
torch.factory = class.factory

for name, f in pairs(functions) do torch[name] = f end
for name, f in pairs(random) do torch[name] = f end
torch.Timer = require 'fused.th.torch.timer'
torch.CmdLine = require 'fused.th.torch.cmdline'
local tester = require 'fused.th.torch.tester'
torch.Tester, torch.TestSuite = tester.Tester, tester.TestSuite

-- The tensor classes: torch.FloatTensor(2, 3), torch.LongTensor({1, 2}), ...; torch.Tensor
-- makes the default type. Each is also the table of the tensor methods (torch.Tensor.add), one
-- for every class: a method added to one (torch.Tensor.double_it = f) is every tensor's.
local methods = require('fused.tensor').methods()
local function class_table(make)
  return setmetatable({}, { __call = function(_, ...) return make(...) end, __index = methods,
                            __newindex = methods })
end
for name in pairs(types.CLASSES) do
  torch[name:match('^torch%.(.*)$')] = class_table(types.constructor(name))
end
torch.Tensor = class_table(types.default_constructor)

function torch.setdefaulttensortype(name) types.set_default(name) end
function torch.getdefaulttensortype() return types.default() end

-- The factories make the default type unless the result comes first (torch.zeros(y, 2, 3)).
local function default_opts() return { dtype = types.CLASSES[types.default()].dtype } end
local function sizes_of(fn, ...)
  local first = ...
  local sizes = type(first) == 'table' and first or { ... }
  for i = 1, #sizes do
    if type(sizes[i]) ~= 'number' then
      blame(string.format("torch.%s: argument %d expected a size (a number), got %s", fn, i, type(sizes[i])))
    end
  end
  return sizes
end
for _, name in ipairs({ 'zeros', 'ones', 'rand', 'randn' }) do
  torch[name] = function(...)
    if types.is_tensor((...)) then
      local res = ...
      local made = fused[name](sizes_of(name, select(2, ...)), { dtype = res.dtype, device = res.device })
      return require('fused.th.torch.tensor').forms.set(res, made)
    end
    return fused[name](sizes_of(name, ...), default_opts())
  end
end

-- torch.range(a, b[, step]): a to b, both included (Torch7's; arange's stop is excluded).
function torch.range(a, b, step)
  step = step or 1
  if type(a) ~= 'number' or type(b) ~= 'number' or type(step) ~= 'number' or step == 0 then
    blame("torch.range: expected (first, last[, step]) numbers, step nonzero")
  end
  local n = math.floor((b - a) / step + 1e-9) + 1
  if n < 1 then blame(string.format("torch.range: %s to %s by %s is empty", a, b, step)) end
  return fused.arange(n, { dtype = 'float64' }):mul_(step):add_(a):to(default_opts().dtype)
end

function torch.linspace(a, b, n) return fused.linspace(a, b, n or 100, default_opts()) end
function torch.logspace(a, b, n)
  return fused.pow(fused.full({ n or 100 }, 10, default_opts()), fused.linspace(a, b, n or 100, default_opts()))
end
function torch.eye(n, m) return fused.eye(n, m or n, default_opts()) end

function torch.isTensor(x) return types.is_tensor(x) end
function torch.isStorage() return false end

-- torch.typename(x): a tensor's type string, a class object's name; torch.type(x) that, else
-- Lua's type.
function torch.typename(x)
  if types.is_tensor(x) then return types.name_of(x) end
  return class.typename(x)
end
function torch.type(x) return torch.typename(x) or type(x) end
function torch.isTypeOf(x, name)
  if types.is_tensor(x) then
    local n = types.name_of(x)
    return n == name or (type(name) == 'string' and n:match(name) ~= nil)
  end
  return class.is_type_of(x, name)
end

-- torch.pointer(x): a number that identifies x (a tensor's first element's address).
function torch.pointer(x)
  if types.is_tensor(x) then return tonumber(ffi.cast('intptr_t', x.data)) end
  local address = tostring(x):match('0x(%x+)')
  return address and tonumber(address, 16) or 0
end

function torch.setnumthreads(n) fused.set_num_threads(n) end
function torch.getnumthreads() return fused.get_num_threads() end

-- torch.data(x): the address of x's first element as a typed pointer (for FFI code).
function torch.data(x)
  if not types.is_tensor(x) then blame('torch.data: expected a tensor, got ' .. type(x)) end
  return ffi.cast(require('fused.dtype').ctypes[x.scalar_type], x.data)
end

-- torch.include(package, file): runs file from the package's folder on package.path, as a
-- Torch7 package's init.lua does.
function torch.include(package_name, file)
  local path = package.searchpath(package_name .. '.' .. file:gsub('%.lua$', ''), package.path)
  if not path then blame(string.format("torch.include: no file %s in package %s on package.path", file, package_name)) end
  return dofile(path)
end

-- torch.LongStorage(n | {sizes}): sizes, as x:size() gives them (a fused.Size).
function torch.LongStorage(n)
  if type(n) == 'table' then return fused.Size(n) end
  local s = {}
  for i = 1, n or 0 do s[i] = 0 end
  return fused.Size(s)
end

-- .t7 files (lua/fused/th/t7/)
local t7 = require 'fused.th.t7'
torch.save, torch.load = t7.save, t7.load
torch.serialize, torch.deserialize = t7.serialize, t7.deserialize
torch.DiskFile, torch.MemoryFile = t7.DiskFile, t7.MemoryFile

return torch
