-- Writing one value in the .t7 format, as torch7's File:writeObject: what fused/th/t7/read.lua
-- reads. Tables and torch.class objects get an object index, so a table met again (shared or
-- cyclic) is written as its index; so do tensors and their storages. Tensors that share
-- memory (views, getParameters' flat vector and the modules' weights) are written with one
-- storage, the span of memory the saved tensors reach, so they share it again when read.
local ffi = require 'ffi'
local dt = require 'fused.dtype'
local argcheck = require 'fused.check'
local class = require 'fused.th.class'
local types = require 'fused.th.t7.types'
local read = require 'fused.th.t7.read'

local M = {}
local Writer = {}
Writer.__index = Writer

local CPU = dt.devices.cpu

local function address(pointer) return tonumber(ffi.cast('uintptr_t', pointer)) end

-- The bytes a CPU tensor with elements reaches: its first and one past its last.
local function span(t)
  local size = dt.sizes[t.scalar_type]
  local reach = 0
  for i = 0, t.ndim - 1 do reach = reach + (t.sizes[i] - 1) * t.strides[i] end
  local first = address(t.data)
  return first, first + (tonumber(reach) + 1) * size
end

local function storage_key(t) return tostring(address(t.storage)) .. ':' .. t.scalar_type end

-- e: fused.th.t7.binary's or ascii's encoder; fail(fmt, ...) raises an error naming the
-- public function; referenced: false writes every table anew, as torch7's File:referenced.
-- writer.file (fused.th.t7.files) is what a class's own write method gets.
function M.new(encoder, fail, referenced)
  return setmetatable({ e = encoder, fail = fail, referenced = referenced ~= false, objects = {},
                        count = 0, names = {}, storages = {} }, Writer)
end

-- Each storage the tensors in value use, as the span of bytes they reach in it, found before
-- writing so that each is written once, whole.
function Writer:find_storages(value)
  local seen = {}
  local function walk(v)
    if seen[v] then return end
    if argcheck.is_tensor(v) then
      seen[v] = true
      if v.device_type == CPU and v:numel() > 0 then
        local key, first, last = storage_key(v), span(v)
        local s = self.storages[key]
        -- A storage written by an earlier writeObject to the same file is kept if it holds v.
        if s and self.objects[s] and (first < s.first or last > s.last) then s = nil end
        if not s then self.storages[key] = { first = first, last = last, owner = v }
        else s.first, s.last = math.min(s.first, first), math.max(s.last, last) end
      end
    elseif type(v) == 'table' then
      seen[v] = true
      for k, x in pairs(v) do
        walk(k)
        walk(x)
      end
    end
  end
  walk(value)
end

-- 'object.layers.1.weight', for messages.
function Writer:where()
  return table.concat(self.names, '.')
end

-- A new object's index, or (referenced) the index it was written under and true.
function Writer:index(v)
  if self.referenced and self.objects[v] then return self.objects[v], true end
  self.count = self.count + 1
  if self.referenced then self.objects[v] = self.count end
  return self.count, false
end

function Writer:torch_header(name, version)
  self.e:int(types.TORCH)
  local index, seen = self:index(self.current)
  self.e:int(index)
  if seen then return false end
  local v = 'V ' .. tostring(version)
  self.e:int(#v)
  self.e:chars(v)
  self.e:int(#name)
  self.e:chars(name)
  return true
end

function Writer:storage(s, element)
  self.current = s
  if not self:torch_header('torch.' .. element.name .. 'Storage', 1) then return end
  local size = element.size
  local n = (s.last - s.first) / size
  self.e:long(n)
  self.e:array(ffi.cast('const char *', s.first), element, n, s.owner)
end

function Writer:tensor(t)
  local element_name = types.element_of(t.scalar_type)
  if not element_name then
    self.fail('a %s tensor at %s has no Torch7 type (convert it first: x:float())', t.dtype, self:where())
  end
  local element = types.elements[element_name]
  self.current = t
  if not self:torch_header('torch.' .. element_name .. 'Tensor', 1) then return end
  if t.device_type ~= CPU then t = t:to('cpu') end -- a host copy, written alone
  local e = self.e
  -- A 0-d tensor (Torch7 had none) is written as one of size 1.
  local ndim = math.max(t.ndim, 1)
  local sizes, strides = {}, {}
  for i = 1, ndim do
    sizes[i] = t.ndim == 0 and 1 or tonumber(t.sizes[i - 1])
    strides[i] = t.ndim == 0 and 1 or tonumber(t.strides[i - 1])
  end
  e:int(ndim)
  e:longs(sizes)
  e:longs(strides)
  if t:numel() == 0 then
    e:long(1)
    e:int(types.NIL)
    return
  end
  local key = storage_key(t)
  local s = self.storages[key]
  if not s then -- met only through a class's own write method, or a host copy
    local first, last = span(t)
    s = { first = first, last = last, owner = t }
    self.storages[key] = s
  end
  e:long((address(t.data) - s.first) / element.size + 1)
  self:storage(s, element)
end

-- A class's version (torch.version: its __version, 1 unless set) and write method, if any.
local function class_methods(name)
  local mt = class.metatable(name)
  local ok, version, write = pcall(function() return mt.__version, mt.__write or mt.write end)
  if not ok then return 1, nil end
  return version or 1, type(write) == 'function' and write or nil
end

function Writer:writable(v)
  local kind = type(v)
  return kind == 'nil' or kind == 'number' or kind == 'string' or kind == 'boolean' or kind == 'table'
    or argcheck.is_tensor(v)
end

function Writer:torch_object(v, name)
  local version, write = class_methods(name)
  self.current = v
  if not self:torch_header(name, version) then return end
  if write then return write(v, self.file) end
  local fields = {}
  for k, x in pairs(v) do
    if self:writable(x) then fields[k] = x
    else -- Torch7 skipped such a field with this warning
      io.stderr:write(string.format('$ Warning: cannot write object field <%s> of <%s> %s\n', tostring(k), name,
                                    self:where()))
    end
  end
  self:object(fields, name)
end

function Writer:table(v)
  local e = self.e
  e:int(types.TABLE)
  local index, seen = self:index(v)
  e:int(index)
  if seen then return end
  local n = 0
  for _ in pairs(v) do n = n + 1 end
  e:int(n)
  for k, x in pairs(v) do
    self:object(k)
    self:object(x, (type(k) == 'string' or type(k) == 'number') and tostring(k) or '?')
  end
end

function Writer:object(v, name)
  local e = self.e
  local kind = type(v)
  if kind == 'nil' then return e:int(types.NIL) end
  if kind == 'number' then e:int(types.NUMBER); return e:double(v) end
  if kind == 'boolean' then e:int(types.BOOLEAN); return e:int(v and 1 or 0) end
  if kind == 'string' then e:int(types.STRING); e:int(#v); return e:chars(v) end
  self.names[#self.names + 1] = name or '?'
  if #self.names > read.MAX_DEPTH then
    self.fail('objects nested deeper than %d levels at %s...', read.MAX_DEPTH,
              table.concat(self.names, '.', 1, 8))
  end
  if argcheck.is_tensor(v) then self:tensor(v)
  elseif kind == 'table' then
    local typename = class.typename(v)
    if typename and class.factory(typename) then self:torch_object(v, typename) else self:table(v) end
  elseif kind == 'function' then
    self.fail('a function at %s: fused writes no code to files (torch.load could not read it back)',
              self:where())
  else
    self.fail('a %s at %s cannot be written', argcheck.type_name(v), self:where())
  end
  self.names[#self.names] = nil
end

return M
