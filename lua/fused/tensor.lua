-- The Tensor class: a fused_tensor struct cdata with methods (ffi.metatype). The struct lives
-- in Lua's heap (a struct, not a pointer, so that LuaJIT's pointer arithmetic cannot shadow +
-- and -); the data lives in a C storage that the struct holds a reference to, dropped by the
-- metatype's __gc. Views share the storage. Here: the storages and their accounting, views'
-- making, the properties, Size, to() and reading elements into Lua. Elsewhere: argument rules
-- in fused/check.lua, factories in fused/factory.lua, views in fused/shape.lua, t[k] in
-- fused/indexing.lua, copies, fills and every other op in fused/ops/, printing in fused/print.lua.
-- The only C called here is the struct's own (c/core/tensor.c: init, view, release, numel,
-- is_contiguous) and the allocator's byte count: no op.
local ffi = require 'ffi'
local lib = require 'fused.lib'
local dt = require 'fused.dtype'
local blame = require 'fused.blame'
local argcheck = require 'fused.check'

local C, check = lib.C, lib.check
local Tensor = {}
local properties = {}
local M = { Tensor = Tensor }

local tensor_t = ffi.typeof('fused_tensor')
local type_name, sequence_length, show_list = argcheck.type_name, argcheck.sequence_length, argcheck.show_list
local check_dim = argcheck.check_dim

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
      error(lib.last_error(), 4)
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

-- t:stride(): the strides as a list; t:stride(d) a number, as PyTorch's.
function Tensor.stride(t, dim)
  if dim ~= nil then return tonumber(t.strides[check_dim(t, dim, 'stride') - 1]) end
  local s = {}
  for d = 1, t.ndim do s[d] = tonumber(t.strides[d - 1]) end
  return s
end

-- t:size(): the sizes as a fused.Size, a list that prints as fused.Size({2, 3}); t:size(d) a number.
-- Its metatable is shared by every loaded copy of this module, as == needs one metatable.
shared.Size = shared.Size or {}
local Size = shared.Size
-- s[0] or s[3] of a 2-D size is an error, not a nil: PyTorch's x.size()[0] means the first dim,
-- which is s[1] here.
function Size.__index(s, k)
  local method = rawget(Size, k)
  if method ~= nil or type(k) ~= 'number' then return method end
  error(string.format('fused.Size: index %s is out of range 1..%d (dims count from 1: %s[1] is the first)',
                      tostring(k), #s, 'size()'), 2)
end
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

-- Conversions -------------------------------------------------------------------------------

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
-- the tensor's own; t itself when nothing changes, as Torch's :float() does. The copies are
-- the op layer's copy_ (fused/ops/copy.lua), found as a method when to() runs.
-- Raises fn's error unless every element of floating t converts to int64 exactly (a whole
-- number in its range): C refuses the rest, in words that name copy, not the conversion the
-- user called. PyTorch truncates toward zero; here that is written out.
local function expect_whole(t, fn)
  local bad = t:ne(t:clone():trunc_()):long():add_(t:ge(2 ^ 63)):add_(t:lt(-2 ^ 63))
  if bad:sum() == 0 then return end
  local at = bad:reshape(-1):argmax()
  blame(string.format("%s: expected whole numbers in int64's range, got %s at position %d "
                      .. "(PyTorch's long() truncates toward zero: write t:trunc() first)", fn,
                      tostring(t:reshape(-1)[at]), at))
end

-- t:to(...) for fn, the method the user called (to, long, type, ...).
local function convert(t, a, b, fn)
  local dtype, device = M.parse_to(a, b, fn, 3)
  dtype, device = dtype or t.scalar_type, device or t.device_type
  if dtype == t.scalar_type and device == t.device_type then return t end
  if dtype == dt.dtypes.int64 and dt.is_floating[t.scalar_type] then expect_whole(t, fn) end
  local src = t
  if device ~= t.device_type and dtype ~= t.scalar_type then
    -- Convert where the data is, then move: a copy between devices keeps the dtype.
    src = M.empty_like(t, dtype):copy_(t)
  elseif device ~= t.device_type then
    src = t:contiguous()
  end
  return M.empty_like(t, dtype, device):copy_(src)
end

function Tensor.to(t, a, b) return convert(t, a, b, 'to') end

-- t converted as t:to(a, b) does, in place: the same Lua object now holds the converted
-- storage, dtype and device, so that whoever holds t (an optimizer) sees the move, as
-- PyTorch's module.to() keeps its parameters' identity. Views of t keep the old storage.
-- A swap of the two structs: b's __gc then releases a's old storage reference.
local function swap(a, b)
  local size = ffi.sizeof(tensor_t)
  local old = ffi.new('uint8_t[?]', size)
  ffi.copy(old, a, size)
  ffi.copy(a, b, size)
  ffi.copy(b, old, size)
end

function M.to_in_place(t, a, b)
  local out = t:to(a, b)
  if out == t then return t end
  return M.replace(t, out)
end

-- Makes the Lua object t hold other's storage, sizes, strides, dtype and device (Torch7's
-- t:set(other), t:resize(...)): a swap of the two structs, so that other's __gc then releases
-- t's old storage reference. other must be a tensor no one else holds.
function M.replace(t, other)
  swap(t, other)
  views[t] = views[other] -- t now shares whatever storage other shared
  return t
end

-- Makes t a view of all of src (Torch7's t:set(src)), in place: the same Lua object now
-- shares src's storage, with its dtype, device, shape and strides, so that whoever holds t (a
-- module, an optimizer) sees the new memory: the way getParameters() points every parameter
-- into one flat tensor.
function M.set(t, src)
  local v = view(src, src.ndim, src.sizes, src.strides, 0)
  swap(t, v)
  views[t] = true
  return t
end

-- t:type() names the class as Torch7 does ('fused.FloatTensor', 'fused.cuda.DoubleTensor');
-- t:type(name) converts to that class.
local classes = {}
for id, class in pairs(dt.torch7_classes) do
  classes['fused.' .. class] = { dt.dtype_names[id], 'cpu' }
  classes['fused.cuda.' .. class] = { dt.dtype_names[id], 'cuda' }
end

function Tensor.type(t, name)
  if name == nil then
    return 'fused.' .. (t.device_type == dt.devices.cuda and 'cuda.' or '')
      .. dt.torch7_classes[t.scalar_type]
  end
  local class = classes[name]
  if not class then
    error(string.format("type: argument 'name' expected a class such as 'fused.DoubleTensor' or "
                        .. "'fused.cuda.FloatTensor', got %s",
                        type(name) == 'string' and "'" .. name .. "'" or type_name(name)), 2)
  end
  return convert(t, class[1], class[2], 'type')
end

function Tensor.float(t) return convert(t, 'float32', nil, 'float') end
function Tensor.double(t) return convert(t, 'float64', nil, 'double') end
function Tensor.long(t) return convert(t, 'int64', nil, 'long') end
function Tensor.bool(t) return convert(t, 'bool', nil, 'bool') end
function Tensor.bfloat16(t) return convert(t, 'bfloat16', nil, 'bfloat16') end
function Tensor.half(t) return convert(t, 'float16', nil, 'half') end
function Tensor.cpu(t) return convert(t, 'cpu', nil, 'cpu') end
function Tensor.cuda(t) return convert(t, 'cuda', nil, 'cuda') end

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

-- The element at offset (in elements) from the data of host tensor t, read as element_reader
-- says: what t:item() and t[i] give.
function M.element(t, offset)
  return element_reader(t.scalar_type)(ffi.cast(dt.ctypes[t.scalar_type], t.data)[offset])
end

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
  if dt.through[host.scalar_type] then host = host:to(dt.dtype_names[dt.through[host.scalar_type]]) end
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
  if dt.through[host.scalar_type] then host = host:to(dt.dtype_names[dt.through[host.scalar_type]]) end
  return M.element(host, 0)
end

-- The metatype ------------------------------------------------------------------------------

-- t[k] and t[k] = v for a number, a table or a tensor k: fused/indexing.lua's get and set,
-- shared as the metatype is.
shared.indexing = shared.indexing or {}
M.indexing = shared.indexing

-- Every misuse of a tensor as a Lua value raises an error that says what to do instead, rather
-- than the FFI's words about a struct (or a silent nil for t[1]). == stays identity, as the
-- FFI gives it (so that t == nil is false).
local function unsupported(message)
  return function() error('fused.Tensor: ' .. message, 2) end
end

-- PyTorch's and Torch7's names that fused has another way for: the error for a missing method
-- or property says it, rather than only that there is none.
local fused_forms = {
  resize = 'tensors are not resized in place: t:reshape(sizes) or t:view(sizes) for the same '
    .. 'elements, fused.empty(sizes) for new ones',
  expand_as = 'write t:expand(other:shape())', view_as = 'write t:view(other:shape())',
  reshape_as = 'write t:reshape(other:shape())', type_as = 'write t:to(other.dtype)',
  tolist = 'write t:totable()', nelement = 'write t:numel()', ndimension = 'write t:dim()',
  numpy = 'write t:totable() for Lua tables, fused.save_npy(path, t) for a .npy file',
  is_cuda = "write t.device == 'cuda'", T = 'write t:t() (2-D) or t:permute(...)',
  grad = 'tensors carry no gradient: a module keeps its parameters\' in module.grad.<name> '
    .. '(and in the grads of module:parameters()); fused.grad(f) derives a function\'s',
  backward = 'tensors have no backward: call module:backward(gradOutput), or derive a '
    .. 'function\'s gradient with fused.grad(f)',
}
fused_forms.resize_, fused_forms.resizeAs = fused_forms.resize, fused_forms.resize
-- Torch7's (docs/torch7.md).
fused_forms.expandAs, fused_forms.viewAs = fused_forms.expand_as, fused_forms.view_as
fused_forms.typeAs, fused_forms.isContiguous = fused_forms.type_as, 'write t:is_contiguous()'
fused_forms.cmul = 'write t:mul(y), or t:mul_(y) in place'
fused_forms.cdiv = 'write t:div(y), or t:div_(y) in place'
fused_forms.index = 'write t:index_select(dim, idx)'
fused_forms.indexAdd = 'write t:index_add_(dim, idx, src)'
fused_forms.maskedSelect = 'write t[m] or t:masked_select(m)'
fused_forms.maskedFill = 'write t[m] = v or t:masked_fill_(m, v)'
fused_forms.maskedCopy = 'write t[m] = src or t:masked_scatter_(m, src)'
fused_forms.requires_grad, fused_forms.requires_grad_ = fused_forms.grad, fused_forms.grad
fused_forms.detach, fused_forms.detach_ = fused_forms.grad, fused_forms.grad

-- t[k] for a k that is neither a method's name nor an index (t[true], t[1LL]).
local function bad_key(k)
  error(string.format("fused.Tensor: t[k] expected for k an index (a number), a table of them "
                      .. "(t[{1, {2, 3}}]) or a bool mask tensor, got %s", type_name(k)), 3)
end

-- __gc drops the storage reference of every fused_tensor struct made by ffi.new: cheaper than
-- ffi.gc per object. A struct copied by hand must not keep the original's storage pointer.
M.metatable = {
  __gc = C.fused_tensor_release,
  __index = function(t, k)
    local method = Tensor[k]
    if method ~= nil then return method end
    if type(k) == 'number' or type(k) == 'table' or ffi.istype(tensor_t, k) then
      return M.indexing.get(t, k)
    end
    local property = properties[k]
    if property then return property(t) end
    if type(k) ~= 'string' then bad_key(k) end
    local form = type(k) == 'string' and rawget(fused_forms, k)
    error(string.format("fused.Tensor has no method or property %s%s",
                        type(k) == 'string' and "'" .. k .. "'" or type_name(k),
                        form and ' (' .. form .. ')' or ''), 2)
  end,
  __newindex = function(t, k, v)
    if type(k) == 'number' or type(k) == 'table' or ffi.istype(tensor_t, k) then
      return M.indexing.set(t, k, v)
    end
    if type(k) ~= 'string' then bad_key(k) end
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

-- The methods above take no argument beyond their parameters: t:size(1, 2) or t:double(1) is
-- an error naming it, as the ops' are (check.no_extra).
for name, f in pairs(Tensor) do Tensor[name] = argcheck.no_extra(name, f) end

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
  -- t.storage is the struct's field, so Torch7's t:storage() calls the C pointer: with the
  -- tensor, it runs the storage method where one is installed (fused th's), else says why not.
  ffi.metatype('fused_storage', {
    __call = function(_, t, ...)
      local storage = rawget(Tensor, 'storage')
      if storage and ffi.istype(tensor_t, t) then return storage(t, ...) end
      error('fused.Tensor: t:storage() is not supported (a storage is internal, shared by views); '
            .. 'use t:contiguous() for a tensor with memory of its own, t.data for the address of '
            .. 'its first element', 2)
    end,
  })
end

return M
