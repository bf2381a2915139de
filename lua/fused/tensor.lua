-- The Tensor class: a fused_tensor struct cdata with methods (ffi.metatype), its constructors,
-- views and conversions. The struct lives in Lua's heap (a struct, not a pointer, so that
-- LuaJIT's pointer arithmetic cannot shadow + and -); the data lives in a C storage that the
-- struct holds a reference to, dropped by the metatype's __gc. Views share the storage.
-- Math lives in fused/ops/, printing in fused/print.lua, the views besides narrow, select,
-- transpose and view in fused/shape.lua, arange/linspace/eye in fused/factory.lua.
local ffi = require 'ffi'
local lib = require 'fused.lib'
local dt = require 'fused.dtype'
local blame = require 'fused.blame'

local C, check = lib.C, lib.check
local Tensor = {}
local properties = {}
local M = { Tensor = Tensor }

local tensor_t = ffi.typeof('fused_tensor')
local sizes_buf = ffi.new('int64_t[8]')
local strides_buf = ffi.new('int64_t[8]')
local MAX_DIMS = 8

function M.is_tensor(x) return ffi.istype(tensor_t, x) end

-- What x is, for "got ..." in errors.
local function type_name(x)
  if ffi.istype(tensor_t, x) then return 'tensor' end
  return type(x) == 'cdata' and tostring(ffi.typeof(x)) or type(x)
end
M.type_name = type_name

-- Raises "fn: argument 'arg' expected a tensor, got <type>" unless x is one (at the user's
-- line, as every check here: fused/blame.lua).
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
  if C.fused_check_writable(fn, arg, x) ~= 0 then blame(ffi.string(C.fused_last_error())) end
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
local function expect_scalar(x, dtype, fn, arg)
  if type(x) == 'boolean' then x = x and 1 or 0 end
  expect_number(x, fn, arg)
  if C.fused_check_scalar(fn, arg, x, dtype) ~= 0 then blame(ffi.string(C.fused_last_error())) end
  return x
end
M.expect_scalar = expect_scalar

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

-- Lua's collector sees a few bytes per tensor, not the memory behind it, so allocations are
-- counted here and a full collection runs once they pass what was live after the last one
-- (at least 256 MB): resident memory stays within about twice the live tensors.
local GC_MIN_BYTES = 256 * 2 ^ 20
local allocated, gc_threshold = 0, GC_MIN_BYTES

local function collect()
  collectgarbage()
  allocated = 0
  local live = tonumber(C.fused_bytes_in_use(0) + C.fused_bytes_in_use(1))
  gc_threshold = math.max(GC_MIN_BYTES, live)
end

-- State that every loaded copy of this module shares: ffi.metatype binds the methods of the
-- first copy for the whole process, so a copy loaded again (busted reloads per spec file) must
-- count and mark views in the same place. In the registry, as C state would be.
local shared = debug.getregistry().fused_tensor_shared
if not shared then
  -- views: tensors made by view(); they share a storage, so an op's `out` that is one is never
  -- resized (the view would part from its base). Weak keys: the entry goes with the view.
  shared = { allocations = 0, views = setmetatable({}, { __mode = 'k' }) }
  debug.getregistry().fused_tensor_shared = shared
end
local views = shared.views

-- Storages made since the library loaded: fused.debug.allocations(), for the specs that pin
-- down that a steady training step allocates nothing.
function M.allocations() return shared.allocations end

-- Gives the struct t a new storage of ndim sizes (an int64_t array); on failure (out of
-- memory, say) collect once and retry before raising.
local function init(t, ndim, sizes, dtype, device)
  if C.fused_tensor_init(t, ndim, sizes, dtype, device) ~= 0 then
    collect()
    if C.fused_tensor_init(t, ndim, sizes, dtype, device) ~= 0 then
      error(ffi.string(C.fused_last_error()), 4)
    end
  end
  shared.allocations = shared.allocations + 1
  allocated = allocated + tonumber(C.fused_tensor_numel(t)) * dt.sizes[dtype]
  if allocated > gc_threshold then collect() end
  return t
end

local function new(ndim, sizes, dtype, device)
  return init(tensor_t(), ndim, sizes, dtype, device)
end
M.new = new

function M.is_view(t) return views[t] == true end

-- Points t at a new storage of ndim sizes (the old one goes when its last tensor does).
function M.resize(t, ndim, sizes)
  C.fused_tensor_release(t)
  return init(t, ndim, sizes, t.scalar_type, t.device_type)
end

function M.empty_like(t, dtype, device)
  return new(t.ndim, t.sizes, dtype or t.scalar_type, device or t.device_type)
end

local function view(t, ndim, sizes, strides, offset)
  local v = tensor_t()
  check(C.fused_tensor_view(v, t, ndim, sizes, strides, offset))
  views[v] = true
  return v
end
M.make_view = view

-- Sizes are exact integers in a double and in int64_t below this; C checks their product.
local MAX_SIZE = 2 ^ 53

-- shape: a list of sizes >= 0 ({}: a 0-d tensor of one element; a size 0: an empty tensor), or
-- one number; fills sizes_buf, returns ndim.
local function parse_shape(shape, fn)
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
  return n
end

M.parse_shape = parse_shape

-- The sizes of a factory, as a list or as numbers: (shape, opts) or (n1, n2, ..., opts).
-- Returns the shape and the options; anything after the options is an error.
local function shape_args(fn, first, ...)
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
M.shape_args = shape_args

function M.empty(...)
  local shape, opts = shape_args('empty', ...)
  local dtype, device = dt.parse(opts, 'empty')
  return new(parse_shape(shape, 'empty'), sizes_buf, dtype, device)
end

-- zeros, ones, rand, randn: a new tensor, then init(t) fills it.
local function factory(fn, init)
  return function(...)
    local shape, opts = shape_args(fn, ...)
    local dtype, device = dt.parse(opts, fn)
    local t = new(parse_shape(shape, fn), sizes_buf, dtype, device)
    check(init(t))
    return t
  end
end
M.zeros = factory('zeros', function(t) return C.fused_fill(t, 0) end)
M.ones = factory('ones', function(t) return C.fused_fill(t, 1) end)
M.rand = factory('rand', function(t) return C.fused_uniform(t, 0, 1) end)
M.randn = factory('randn', function(t) return C.fused_normal(t, 0, 1) end)

-- full(shape, value, opts): the shape a list (or one number), as value follows it.
function M.full(shape, value, opts)
  local dtype, device = dt.parse(opts, 'full')
  value = expect_scalar(value, dtype, 'full', 'value')
  local t = new(parse_shape(shape, 'full'), sizes_buf, dtype, device)
  check(C.fused_fill(t, value))
  return t
end

-- The generator takes a uint64_t seed. A Lua number is exact up to 2^53 (above it, 2^64 would
-- wrap to 0 and nearby seeds would collide), so larger seeds come as uint64_t/int64_t cdata.
local uint64_t, int64_t = ffi.typeof('uint64_t'), ffi.typeof('int64_t')
function M.manual_seed(seed)
  local ok
  if type(seed) == 'number' then
    ok = seed >= 0 and seed <= 2 ^ 53 and seed == math.floor(seed)
  else
    ok = ffi.istype(uint64_t, seed) or ffi.istype(int64_t, seed) and seed >= 0
  end
  if not ok then
    error("manual_seed: argument 'seed' expected an integer in [0, 2^53] (or a uint64_t cdata "
          .. "for larger seeds), got " .. (type(seed) == 'number' and tostring(seed) or type_name(seed)), 2)
  end
  C.fused_manual_seed(seed)
end

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
    shape[#shape + 1] = sequence_length(node) or 1
    node = node[1]
  end
  if type(node) == 'boolean' and (opts == nil or opts.dtype == nil) then dtype = dt.dtypes.bool end
  local host = new(scalar and 0 or parse_shape(shape, 'tensor'), sizes_buf, dtype, dt.devices.cpu)
  local p, at = ffi.cast(dt.ctypes[dtype], host.data), 0
  local takes, expected = unpack(element_rules[dtype] or number_rule)
  -- Errors are blamed on tensor's caller: d - 1 walks and tensor itself lie in between.
  local function walk(x, d, where)
    if d > #shape then
      if not takes(x) then
        error(string.format("tensor: argument 'data' expected %s at %s (dtype %s), got %s",
                            expected, where, dt.dtype_names[dtype],
                            type(x) == 'number' and tostring(x) or type_name(x)), d + 2)
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
  return device == dt.devices.cpu and host or host:to(dt.device_names[device])
end

-- Properties --------------------------------------------------------------------------------

function properties.dtype(t) return dt.dtype_names[t.scalar_type] end
function properties.device(t) return dt.device_names[t.device_type] end

function Tensor.dim(t) return t.ndim end
function Tensor.numel(t) return tonumber(C.fused_tensor_numel(t)) end
Tensor.nDimension, Tensor.nElement = Tensor.dim, Tensor.numel -- Torch7's names
function Tensor.is_contiguous(t) return C.fused_tensor_is_contiguous(t) == 1 end

function Tensor.shape(t)
  local s = {}
  for d = 1, t.ndim do s[d] = tonumber(t.sizes[d - 1]) end
  return s
end

function Tensor.stride(t)
  local s = {}
  for d = 1, t.ndim do s[d] = tonumber(t.strides[d - 1]) end
  return s
end

-- dim is 1-based; negative counts from the end, as in Torch.
local function check_dim(t, dim, fn, arg)
  arg = arg or 'dim'
  if type(dim) ~= 'number' or dim ~= math.floor(dim) or dim == 0 or dim > t.ndim or dim < -t.ndim then
    blame(string.format("%s: argument '%s' expected a dim in 1..%d, got %s", fn, arg, t.ndim,
                        type(dim) == 'number' and tostring(dim) or type_name(dim)))
  end
  return dim < 0 and t.ndim + dim + 1 or dim
end
M.check_dim = check_dim

-- t:size(): the sizes as a fused.Size, a list that prints as fused.Size({2, 3}); t:size(d) a number.
-- Its metatable is shared by every loaded copy of this module, as == needs one metatable.
shared.Size = shared.Size or {}
local Size = shared.Size
Size.__index = Size
function Size.__tostring(s) return 'fused.Size({' .. table.concat(s, ', ') .. '})' end
function Size.__eq(a, b)
  if #a ~= #b then return false end
  for d = 1, #a do if a[d] ~= b[d] then return false end end
  return true
end
function Size.numel(s)
  local n = 1
  for d = 1, #s do n = n * s[d] end
  return n
end

function M.Size(list)
  local s, n = {}, type(list) == 'table' and sequence_length(list)
  for d = 1, n or 0 do
    if type(list[d]) ~= 'number' then n = nil; break end
  end
  if not n then
    blame(string.format("Size: argument 'list' expected a list of sizes, got %s",
                        type(list) == 'table' and show_list(list) or type_name(list)))
  end
  for d = 1, n do s[d] = list[d] end
  return setmetatable(s, Size)
end

function Tensor.size(t, dim)
  if dim == nil then return setmetatable(t:shape(), Size) end
  return tonumber(t.sizes[check_dim(t, dim, 'size') - 1])
end

-- t:type() names the class as Torch7 does ('fused.FloatTensor', 'fused.cuda.DoubleTensor');
-- t:type(name) converts to that class.
local class_names = { float32 = 'FloatTensor', float64 = 'DoubleTensor', int64 = 'LongTensor',
                      bool = 'BoolTensor' }
local classes = {}
for dtype, class in pairs(class_names) do
  classes['fused.' .. class] = { dtype, 'cpu' }
  classes['fused.cuda.' .. class] = { dtype, 'cuda' }
end
function Tensor.type(t, name)
  if name == nil then
    return 'fused.' .. (t.device_type == dt.devices.cuda and 'cuda.' or '')
      .. class_names[dt.dtype_names[t.scalar_type]]
  end
  local class = classes[name]
  if not class then
    error(string.format("type: argument 'name' expected a class such as 'fused.DoubleTensor' or "
                        .. "'fused.cuda.FloatTensor', got %s",
                        type(name) == 'string' and "'" .. name .. "'" or type_name(name)), 2)
  end
  return t:to(class[1], class[2])
end

-- Copies and conversions --------------------------------------------------------------------

-- In place, PyTorch's names (a trailing underscore); any strides. The Torch7 names without it
-- (t:copy(src), t:zero(), ...) are the same functions, kept for existing scripts.
-- src of t's number of elements is copied in row-major order whatever its shape (as Torch7);
-- of fewer, it broadcasts to t's shape when it can (an expanded view: copy takes any strides).
local function broadcasts_to(src, t)
  if src.ndim > t.ndim then return false end
  for back = 1, src.ndim do
    local s = src.sizes[src.ndim - back]
    if s ~= 1 and s ~= t.sizes[t.ndim - back] then return false end
  end
  return true
end

function Tensor.copy_(t, src)
  M.expect_writable(t, 'copy_', 'self')
  M.expect(src, 'copy_', 'src')
  if C.fused_tensor_numel(src) ~= C.fused_tensor_numel(t) and broadcasts_to(src, t) then
    src = src:expand(t:shape())
  end
  check(C.fused_copy(t, src))
  return t
end

function Tensor.fill_(t, value)
  M.expect_writable(t, 'fill_', 'self')
  check(C.fused_fill(t, expect_scalar(value, t.scalar_type, 'fill_', 'value')))
  return t
end

function Tensor.zero_(t)
  M.expect_writable(t, 'zero_', 'self')
  check(C.fused_fill(t, 0))
  return t
end

function Tensor.uniform_(t, low, high)
  M.expect_writable(t, 'uniform_', 'self')
  low, high = low or 0, high or 1
  expect_number(low, 'uniform_', 'low'); expect_number(high, 'uniform_', 'high')
  check(C.fused_uniform(t, low, high))
  return t
end

function Tensor.normal_(t, mean, std)
  M.expect_writable(t, 'normal_', 'self')
  mean, std = mean or 0, std or 1
  expect_number(mean, 'normal_', 'mean'); expect_number(std, 'normal_', 'std')
  check(C.fused_normal(t, mean, std))
  return t
end

Tensor.copy, Tensor.fill, Tensor.zero = Tensor.copy_, Tensor.fill_, Tensor.zero_
Tensor.uniform, Tensor.normal = Tensor.uniform_, Tensor.normal_

function Tensor.clone(t)
  local c = M.empty_like(t)
  check(C.fused_copy(c, t))
  return c
end

function Tensor.contiguous(t)
  if C.fused_tensor_is_contiguous(t) == 1 then return t end
  return t:clone()
end

-- The arguments of to(a, b): a dtype name and a device name in either order, nil for none;
-- returns the dtype and device numbers, nil where not given. A second dtype or device is an
-- error rather than a silent override. level is error's, seen from parse_to.
function M.parse_to(a, b, fn, level)
  local dtype, device
  for pos, x in pairs({ a, b }) do -- pairs, as ipairs would stop at a nil a
    local what = dt.dtypes[x] and 'dtype' or dt.devices[x] and 'device'
    if not what then
      error(string.format("%s: argument %d expected %s, got %s", fn, pos,
                          dt.one_of(dt.dtype_names, "'", "'cpu'", "'cuda'", 'nil'),
                          type(x) == 'string' and "'" .. x .. "'" or type_name(x)), level)
    end
    if (what == 'dtype' and dtype) or (what == 'device' and device) then
      error(string.format("%s: expected at most one dtype and one device, got two %ss", fn, what), level)
    end
    if what == 'dtype' then dtype = dt.dtypes[x] else device = dt.devices[x] end
  end
  return dtype, device
end

-- t:to(dtype name | 'cuda' | 'cpu'), or t:to(dtype, device) in either order, nil for
-- the tensor's own; t itself when nothing changes, as Torch's :float() does.
function Tensor.to(t, a, b)
  local dtype, device = M.parse_to(a, b, 'to', 3)
  dtype, device = dtype or t.scalar_type, device or t.device_type
  if dtype == t.scalar_type and device == t.device_type then return t end
  local src = t
  if device ~= t.device_type and dtype ~= t.scalar_type then
    -- Convert where the data is, then move: a copy between devices keeps the dtype.
    src = M.empty_like(t, dtype)
    check(C.fused_copy(src, t))
  elseif device ~= t.device_type then
    src = t:contiguous()
  end
  local out = M.empty_like(t, dtype, device)
  check(C.fused_copy(out, src))
  return out
end

-- t converted as t:to(a, b) does, in place: the same Lua object now holds the converted
-- storage, dtype and device, so that whoever holds t (an optimizer) sees the move, as
-- PyTorch's module.to() keeps its parameters' identity. Views of t keep the old storage.
function M.to_in_place(t, a, b)
  local out = t:to(a, b)
  if out == t then return t end
  -- A swap of the two structs: out's __gc then releases t's old storage reference.
  local size = ffi.sizeof(tensor_t)
  local old = ffi.new('uint8_t[?]', size)
  ffi.copy(old, t, size)
  ffi.copy(t, out, size)
  ffi.copy(out, old, size)
  return t
end

function Tensor.float(t) return t:to('float32') end
function Tensor.double(t) return t:to('float64') end
function Tensor.long(t) return t:to('int64') end
function Tensor.bool(t) return t:to('bool') end
function Tensor.cpu(t) return t:to('cpu') end
function Tensor.cuda(t) return t:to('cuda') end

-- How Lua reads an element: floats as numbers, bools as booleans, int64 as a number where a
-- double holds it exactly (|v| <= 2^53) and as the int64_t cdata beyond, so that no value is
-- rounded (tensor() takes either back).
local function exact_int64(v)
  if v >= -2 ^ 53 and v <= 2 ^ 53 then return tonumber(v) end
  return v
end
local element_readers = {
  [dt.dtypes.int64] = exact_int64,
  [dt.dtypes.bool] = function(v) return v end, -- the FFI reads a C bool as a Lua boolean
}
local function element_reader(dtype) return element_readers[dtype] or tonumber end

-- The number of true elements of a bool tensor (what t[mask] selects), as a Lua number.
function M.count_true(mask)
  local host = mask:to('cpu'):contiguous()
  local p, n = ffi.cast('const bool *', host.data), 0
  for i = 0, host:numel() - 1 do
    if p[i] then n = n + 1 end
  end
  return n
end

-- Nested Lua tables of the elements, read as element_reader says.
function Tensor.totable(t)
  local host = t:to('cpu'):contiguous()
  local ctype, at, shape = dt.ctypes[host.scalar_type], 0, host:shape()
  local read = element_reader(host.scalar_type)
  if #shape == 0 then return read(ffi.cast(ctype, host.data)[0]) end -- 0-d: the element, as PyTorch's tolist
  -- build casts host.data itself, so that host (an upvalue) lives as long as the pointer.
  local function build(d)
    local p, r = ffi.cast(ctype, host.data), {}
    for i = 1, shape[d] do
      if d == #shape then
        r[i] = read(p[at]); at = at + 1
      else
        r[i] = build(d + 1)
      end
    end
    return r
  end
  return build(1)
end

-- The element of a one-element tensor, read as element_reader says.
function Tensor.item(t)
  if t:numel() ~= 1 then
    error(string.format("item: expected a tensor of one element, got %d of size [%s]", t:numel(),
                        table.concat(t:shape(), ', ')), 2)
  end
  local host = t:to('cpu')
  return element_reader(host.scalar_type)(ffi.cast(dt.ctypes[host.scalar_type], host.data)[0])
end

-- Views: they share the storage ----------------------------------------------------------

local function copy_layout(t)
  for d = 0, t.ndim - 1 do
    sizes_buf[d] = t.sizes[d]
    strides_buf[d] = t.strides[d]
  end
end

-- t:narrow(dim, start, length): elements start .. start+length-1 along dim (1-based).
function Tensor.narrow(t, dim, start, length)
  dim = check_dim(t, dim, 'narrow')
  local size = tonumber(t.sizes[dim - 1])
  -- start may be size + 1 when length is 0: an empty narrow at the end, as PyTorch's.
  if type(start) ~= 'number' or start < 1 or start > size + 1 or start ~= math.floor(start) then
    error(string.format("narrow: argument 'start' expected 1..%d, got %s", size + 1, tostring(start)), 2)
  end
  if type(length) ~= 'number' or length < 0 or start + length - 1 > size or length ~= math.floor(length) then
    error(string.format("narrow: argument 'length' expected 0..%d (start %d, size %d), got %s",
                        size - start + 1, start, size, tostring(length)), 2)
  end
  copy_layout(t)
  sizes_buf[dim - 1] = length
  return view(t, t.ndim, sizes_buf, strides_buf, (start - 1) * t.strides[dim - 1])
end

-- t:select(dim, index): the slice at index, with dim removed (a 1-D tensor gives 1 element).
function Tensor.select(t, dim, index)
  dim = check_dim(t, dim, 'select')
  local size = tonumber(t.sizes[dim - 1])
  if type(index) ~= 'number' or index < 1 or index > size or index ~= math.floor(index) then
    error(string.format("select: argument 'index' expected 1..%d, got %s", size, tostring(index)), 2)
  end
  if t.ndim == 1 then return t:narrow(1, index, 1) end
  local n = 0
  for d = 0, t.ndim - 1 do
    if d ~= dim - 1 then
      sizes_buf[n], strides_buf[n] = t.sizes[d], t.strides[d]
      n = n + 1
    end
  end
  return view(t, n, sizes_buf, strides_buf, (index - 1) * t.strides[dim - 1])
end

-- n pieces along dim, the last one smaller when the size does not divide (as torch.chunk).
function Tensor.chunk(t, n, dim)
  dim = check_dim(t, dim or 1, 'chunk')
  if type(n) ~= 'number' or n < 1 or n ~= math.floor(n) then
    error("chunk: argument 'n' expected a positive integer, got " .. tostring(n), 2)
  end
  local size = tonumber(t.sizes[dim - 1])
  local step = math.ceil(size / n)
  local pieces = {}
  if size == 0 then -- n empty pieces, as torch.chunk (a step of 0 would not advance)
    for i = 1, n do pieces[i] = t:narrow(dim, 1, 0) end
    return pieces
  end
  for start = 1, size, step do
    pieces[#pieces + 1] = t:narrow(dim, start, math.min(step, size - start + 1))
  end
  return pieces
end

function Tensor.transpose(t, d1, d2)
  d1, d2 = check_dim(t, d1, 'transpose', 'dim1'), check_dim(t, d2, 'transpose', 'dim2')
  copy_layout(t)
  sizes_buf[d1 - 1], sizes_buf[d2 - 1] = t.sizes[d2 - 1], t.sizes[d1 - 1]
  strides_buf[d1 - 1], strides_buf[d2 - 1] = t.strides[d2 - 1], t.strides[d1 - 1]
  return view(t, t.ndim, sizes_buf, strides_buf, 0)
end

function Tensor.t(t)
  if t.ndim ~= 2 then
    error(string.format("t: expected a 2-D tensor, got %d dims (use transpose(dim1, dim2))", t.ndim), 2)
  end
  return t:transpose(1, 2)
end

-- A view of contiguous t with another shape of the same numel (one size may be -1), for fn
-- (view or reshape: the name its errors give).
local function reshaped(fn, t, shape, ...)
  if type(shape) == 'number' then shape = { shape, ... } end
  local n = type(shape) == 'table' and sequence_length(shape)
  if not n then
    blame(string.format("%s: argument 'shape' expected a list of sizes (one may be -1), got %s", fn,
                        type(shape) == 'table' and show_list(shape) or type_name(shape)))
  end
  -- The sizes besides the -1 are checked by parse_shape below.
  local resolved, known, infer = {}, 1, nil
  for i = 1, n do
    if shape[i] == -1 and not infer then infer = i
    elseif type(shape[i]) == 'number' then known = known * shape[i] end
    resolved[i] = shape[i]
  end
  if infer then
    if known < 1 or t:numel() % known ~= 0 then -- as PyTorch, -1 is ambiguous beside a 0
      blame(string.format("%s: argument 'shape' %s cannot hold %d elements whatever its -1", fn,
                          show_list(shape), t:numel()))
    end
    resolved[infer] = t:numel() / known
  end
  local ndim = parse_shape(resolved, fn)
  local numel = 1
  for i = 1, ndim do numel = numel * resolved[i] end
  if numel ~= t:numel() then
    blame(string.format("%s: argument 'shape' expected %d elements in all, got %d", fn,
                        t:numel(), numel))
  end
  local stride = 1
  for d = ndim - 1, 0, -1 do
    strides_buf[d] = stride
    stride = stride * math.max(tonumber(sizes_buf[d]), 1) -- PyTorch's strides beside a size 0
  end
  return view(t, ndim, sizes_buf, strides_buf, 0)
end

-- A view with another shape of the same numel (one size may be -1); t must be contiguous.
function Tensor.view(t, shape, ...)
  if C.fused_tensor_is_contiguous(t) ~= 1 then
    error("view: expected a contiguous tensor (use :reshape() or :contiguous())", 2)
  end
  return reshaped('view', t, shape, ...)
end

function Tensor.reshape(t, shape, ...) return reshaped('reshape', t:contiguous(), shape, ...) end

-- Indexing: t[i] along dim 1 ---------------------------------------------------------------
-- (a table or a tensor as the key, Torch7's slices and masks: fused/indexing.lua's get and set,
-- in M.key_indexing, shared as the metatype is.)
local index_get, index_set
shared.key_indexing = shared.key_indexing or {}
M.key_indexing = shared.key_indexing

-- i counted from 1 along dim (of t's), negative from the end (-1 the last); level as error's,
-- seen from the caller of dim_index.
function M.dim_index(t, dim, i, level)
  if t.ndim == 0 then -- as PyTorch: a 0-d tensor has no dim to index
    error("fused.Tensor: a 0-d tensor cannot be indexed; read its element with t:item()", level + 1)
  end
  local size = tonumber(t.sizes[dim - 1])
  if type(i) ~= 'number' or i ~= math.floor(i) or i == 0 or i > size or i < -size then
    error(string.format("fused.Tensor: index %s is out of range for dim %d of size %d (expected 1..%d, "
                        .. "or -%d..-1 from the end)", type(i) == 'number' and tostring(i) or type_name(i),
                        dim, size, size, size), level + 1)
  end
  return i < 0 and size + i + 1 or i
end

-- t[i]: the slice at i along dim 1, a view; for a 1-D tensor its element (as t:item() reads it).
index_get = function(t, i)
  i = M.dim_index(t, 1, i, 2)
  if t.ndim > 1 then return t:select(1, i) end
  if t.device_type ~= dt.devices.cpu then return t:narrow(1, i, 1):item() end
  return element_reader(t.scalar_type)(ffi.cast(dt.ctypes[t.scalar_type], t.data)[(i - 1) * t.strides[0]])
end

-- lhs = v (lhs 't[i]', say, the slice as the user wrote it): a number (or boolean) fills the
-- slice, a tensor is copied into it (broadcast, as copy_). level as error's, seen from the
-- caller of assign.
function M.assign(slice, v, lhs, level)
  local expr = lhs .. ' = v'
  M.expect_writable(slice, expr, lhs)
  if type(v) == 'number' or type(v) == 'boolean' then
    check(C.fused_fill(slice, expect_scalar(v, slice.scalar_type, expr, 'v')))
  elseif ffi.istype(tensor_t, v) then
    slice:copy_(v)
  else
    error(string.format("fused.Tensor: %s expected a number, a boolean or a tensor for v, got %s", expr,
                        type_name(v)), level + 1)
  end
end

-- t[i] = v: the slice at i along dim 1 (the element of a 1-D tensor), as assign writes it.
index_set = function(t, i, v)
  i = M.dim_index(t, 1, i, 2)
  M.assign(t.ndim > 1 and t:select(1, i) or t:narrow(1, i, 1), v, 't[i]', 2)
end

-- The metatype ------------------------------------------------------------------------------

-- Every misuse of a tensor as a Lua value raises an error that says what to do instead, rather
-- than the FFI's words about a struct (or a silent nil for t[1]). == stays identity, as the
-- FFI gives it (so that t == nil is false).
local function unsupported(message)
  return function() error('fused.Tensor: ' .. message, 2) end
end

-- __gc drops the storage reference of every fused_tensor struct made by ffi.new: cheaper than
-- ffi.gc per object. A struct copied by hand must not keep the original's storage pointer.
M.metatable = {
  __gc = C.fused_tensor_release,
  __index = function(t, k)
    local method = Tensor[k]
    if method ~= nil then return method end
    if type(k) == 'number' then return index_get(t, k) end
    if type(k) == 'table' or ffi.istype(tensor_t, k) then return M.key_indexing.get(t, k) end
    local property = properties[k]
    if property then return property(t) end
    error(string.format("fused.Tensor has no method or property %s",
                        type(k) == 'string' and "'" .. k .. "'" or type_name(k)), 2)
  end,
  __newindex = function(t, k, v)
    if type(k) == 'number' then return index_set(t, k, v) end
    if type(k) == 'table' or ffi.istype(tensor_t, k) then return M.key_indexing.set(t, k, v) end
    error(string.format("fused.Tensor: cannot set field %s (tensors have no fields to set)",
                        type(k) == 'string' and "'" .. k .. "'" or type_name(k)), 2)
  end,
  __call = unsupported('a tensor is not callable'),
  __len = unsupported('#t is not supported; use t:size(1) or t:numel()'),
  __mod = unsupported('% is not supported (there is no remainder op)'),
  -- Lua makes the result of < a boolean, so comparisons are methods giving bool tensors.
  __lt = unsupported('< is not supported; use a:lt(b) or a:gt(b), which give bool tensors'),
  __le = unsupported('<= is not supported; use a:le(b) or a:ge(b), which give bool tensors'),
  __concat = unsupported('.. is not supported; use tostring(t) for text, fused.cat for tensors'),
}

-- Called once by fused/init.lua after ops and printing have added their methods. Each method
-- first checks that it was called on a tensor: t.size(1), written for t:size(1), says so
-- rather than failing inside the method.
function M.install()
  for name, f in pairs(Tensor) do
    Tensor[name] = function(t, ...)
      if not ffi.istype(tensor_t, t) then
        error(string.format("fused.Tensor.%s: expected a tensor to call it on, got %s (call it as t:%s(...))",
                            name, type_name(t), name), 2)
      end
      return f(t, ...)
    end
  end
  ffi.metatype('fused_tensor', M.metatable)
  -- t.storage is the struct's field, so Torch7's t:storage() would call the C pointer.
  ffi.metatype('fused_storage', {
    __call = unsupported('t:storage() is not supported (a storage is internal, shared by views); '
                         .. 'use t:contiguous() for a tensor with memory of its own, t.data for '
                         .. 'the address of its first element'),
  })
end

return M
