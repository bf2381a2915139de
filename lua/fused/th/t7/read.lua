-- Reading one value of a .t7 file, as torch7's File:readObject: nil, numbers, strings,
-- booleans, tables (an object index makes shared and cyclic references one table again),
-- tensors and storages of Torch7's types, and torch.class objects rebuilt through the class
-- registry (fused/th/class.lua), by their own read method where the class has one. Nothing
-- read is trusted: each count is checked against the bytes left before anything is made of
-- it, so a corrupt file gives an error, never an absurd allocation.
local ffi = require 'ffi'
local tensor = require 'fused.tensor'
local dt = require 'fused.dtype'
local class = require 'fused.th.class'
local types = require 'fused.th.t7.types'

local M = {}
local Reader = {}
Reader.__index = Reader

local MAX_DIMS = 8 -- C's FUSED_MAX_DIMS
-- Nesting deeper than this is refused with a message (LuaJIT's stack ends near 5000 levels).
M.MAX_DEPTH = 1000

-- decoder: fused.th.t7.binary's or ascii's; referenced: false reads every object anew, as
-- torch7's File:referenced(false) wrote them. reader.file (fused.th.t7.files) is what a class's
-- own read method gets.
function M.new(decoder, referenced)
  return setmetatable({ d = decoder, fail = decoder.fail, referenced = referenced ~= false,
                        objects = {}, count = 0, depth = 0,
                        storages = setmetatable({}, { __mode = 'k' }) }, Reader)
end

local function is_nan(x) return x ~= x end

function Reader:string(what)
  local n = self.d:int(what .. "'s length")
  if n < 0 then self.fail('%s has a negative length %d', what, n) end
  return self.d:chars(n, what)
end

function Reader:table(index)
  local n = self.d:int("a table's size")
  -- Each entry takes at least two type tags.
  if n < 0 or n * 8 > self.d.stream:remaining() then
    self.fail("a table's size %d does not fit in the %d bytes left", n, self.d.stream:remaining())
  end
  local t = {}
  self:keep(index, t)
  for _ = 1, n do
    local k = self:object()
    local v = self:object()
    if k == nil or is_nan(k) then self.fail('a table key is %s', tostring(k)) end
    t[k] = v
  end
  return t
end

-- The storage: a 1-D tensor of its elements, or (hint, from the tensor read before it) a
-- tensor of that tensor's shape when it is the whole storage, contiguous, so that a tensor
-- alone in its storage is a plain tensor and not a view.
function Reader:storage(index, element)
  local n = self.d:long("a storage's size")
  local raw = self.d:raw_ctype(element)
  if n < 0 or n * self.d:least_bytes(element) > self.d.stream:remaining() then
    self.fail("a storage of %d elements does not fit in the %d bytes left", n, self.d.stream:remaining())
  end
  local hint = self.hint
  self.hint = nil
  local ndim, sizes = 1, ffi.new('int64_t[1]', n)
  if hint and hint.numel == n then ndim, sizes = hint.ndim, hint.sizes end
  local t = tensor.new(ndim, sizes, element.dtype, dt.devices.cpu)
  if dt.sizes[element.dtype] == ffi.sizeof(raw) and not self.d.parses then
    self.d:array(t.data, element, n, 'the storage')
  else -- Int, Short... held in int64; any element parsed from ascii text
    local values = ffi.new(raw .. '[?]', math.max(n, 1))
    self.d:array(values, element, n, 'the storage')
    local through = dt.through[element.dtype]
    local target = through and tensor.new(ndim, sizes, through, dt.devices.cpu) or t
    local out = ffi.cast(dt.ctypes[target.scalar_type], target.data)
    for i = 0, n - 1 do out[i] = values[i] end
    if through then t:copy_(target) end
  end
  self.storages[t] = { element = element, numel = n }
  self:keep(index, t)
  return t
end

local function product(list)
  local n = 1
  for _, v in ipairs(list) do n = n * v end
  return n
end

local function same_shape(t, sizes)
  if t.ndim ~= #sizes then return false end
  for i = 1, #sizes do
    if t.sizes[i - 1] ~= sizes[i] then return false end
  end
  return true
end

function Reader:tensor(index, element, name)
  local d = self.d
  local ndim = d:int("a tensor's dim count")
  if ndim < 0 or ndim > MAX_DIMS then
    self.fail('a tensor of %d dims: fused tensors have 0 to %d', ndim, MAX_DIMS)
  end
  local sizes, strides = d:longs(ndim, "a tensor's size"), d:longs(ndim, "a tensor's stride")
  local offset = d:long("a tensor's storage offset") - 1
  for i = 1, ndim do
    if sizes[i] < 0 then self.fail('a tensor of size %d at dim %d', sizes[i], i) end
    if strides[i] < 0 then self.fail('a tensor of stride %d at dim %d', strides[i], i) end
  end
  if offset < 0 then self.fail('a tensor at storage offset %d (counted from 1)', offset + 1) end
  -- Even an empty tensor's other sizes must multiply to a count a tensor can have.
  local count = 1
  for i = 1, ndim do count = count * math.max(sizes[i], 1) end
  if count >= 2 ^ 62 then
    local shown = {}
    for i, v in ipairs(sizes) do shown[i] = string.format('%d', v) end
    self.fail('a tensor of sizes %s: too many elements', table.concat(shown, 'x'))
  end
  local numel = ndim == 0 and 0 or product(sizes) -- no dims: Torch7's empty tensor
  local c_sizes = ffi.new('int64_t[?]', math.max(ndim, 1), sizes)
  local contiguous, step = true, 1
  for i = ndim, 1, -1 do
    if sizes[i] ~= 1 and strides[i] ~= step then contiguous = false end
    step = step * sizes[i]
  end
  if ndim > 0 and numel > 0 and contiguous and offset == 0 then
    self.hint = { ndim = ndim, sizes = c_sizes, numel = numel }
  end
  local storage = self:object()
  self.hint = nil
  local info = storage ~= nil and self.storages[storage]
  if storage ~= nil and not (info and info.element == element) then
    self.fail('a %s holds a %s, expected a torch.%sStorage', name,
              info and 'torch.' .. info.element.name .. 'Storage' or class.typename(storage) or type(storage),
              element.name)
  end
  local t
  if numel == 0 then
    t = tensor.new(math.max(ndim, 1), ndim > 0 and c_sizes or ffi.new('int64_t[1]', 0), element.dtype,
                   dt.devices.cpu)
  elseif not storage then
    self.fail('a %s of %d elements has no storage', name, numel)
  else
    local last = offset
    for i = 1, ndim do last = last + (sizes[i] - 1) * strides[i] end
    if last >= info.numel then
      self.fail('a %s reaches element %d of a storage of %d', name, last + 1, info.numel)
    end
    if not info.claimed and contiguous and offset == 0 and same_shape(storage, sizes) then
      t, info.claimed = storage, true -- the storage's tensor is this one; others sharing it are views
    else
      local c_strides = ffi.new('int64_t[?]', math.max(ndim, 1), strides)
      t = tensor.make_view(storage, ndim, c_sizes, c_strides, offset)
    end
  end
  self:keep(index, t)
  return t
end

function Reader:keep(index, value)
  if self.referenced then self.objects[index] = value end
end

-- A torch.class object: its class's read method, or its fields (a table).
function Reader:torch_object(index)
  local version_text = self:string('a class name')
  local version = tonumber(version_text:match('^V (.*)$') or nil)
  local name = version_text
  if version then name = self:string('a class name') else version = 0 end -- older files
  local element, kind = types.parse_class(name)
  if kind == 'Storage' then return self:storage(index, types.elements[element]) end
  if kind == 'Tensor' then return self:tensor(index, types.elements[element], name) end
  local make = class.factory(name)
  if not make then
    self.fail("unknown class '%s': no torch.class of that name (require the package that defines it first)",
              types.show(name))
  end
  local object = make()
  self:keep(index, object)
  local mt = class.metatable(name)
  local ok, read = pcall(function() return mt.__read or mt.read end)
  if ok and type(read) == 'function' then
    read(object, self.file, version)
  else
    local fields = self:object()
    if type(fields) ~= 'table' then self.fail("a %s's fields are a %s, expected a table", name, type(fields)) end
    for k, v in pairs(fields) do object[k] = v end
  end
  return object
end

function Reader:object()
  local d = self.d
  local tag = d:int('a type tag')
  if tag == types.NIL then return nil end
  if tag == types.NUMBER then return d:double('a number') end
  if tag == types.STRING then return self:string('a string') end
  if tag == types.BOOLEAN then
    local v = d:int('a boolean')
    if v ~= 0 and v ~= 1 then self.fail('a boolean is %d, expected 0 or 1', v) end
    return v == 1
  end
  if tag == types.FUNCTION or tag == types.RECUR_FUNCTION or tag == types.LEGACY_RECUR_FUNCTION then
    self.fail('a Lua function (its bytecode): fused does not load code from files')
  end
  if tag ~= types.TABLE and tag ~= types.TORCH then
    self.fail('unknown type tag %d (expected 0 to 5)', tag)
  end
  local index = d:int('an object index')
  if self.referenced then
    local seen = self.objects[index]
    if seen ~= nil then return seen end
    if index ~= self.count + 1 then
      self.fail('object index %d: expected one read before (1 to %d) or the next, %d', index, self.count,
                self.count + 1)
    end
  end
  self.count = self.count + 1
  if self.depth >= M.MAX_DEPTH then self.fail('objects nested deeper than %d levels', M.MAX_DEPTH) end
  self.depth = self.depth + 1
  local value
  if tag == types.TABLE then value = self:table(index) else value = self:torch_object(index) end
  self.depth = self.depth - 1
  return value
end

return M
