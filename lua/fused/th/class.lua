-- Torch7's class registry, behind torch.class, torch.getmetatable, torch.typename,
-- torch.isTypeOf and torch.factory: a class is known by its name ('nn.Linear'), and the .t7
-- reader makes objects from the names it reads. A class whose parent is one of fused's modules
-- is made by the parent's extend (so nn/calls.lua wraps its forward and backward as for any
-- module); any other is Torch7's plain metatable, its methods found through the parent's.
local M = {}

local classes, parents = {}, {}

-- Whether v is an object of a Torch7 plain class (its metatable registered by name).
local function class_object(v)
  local mt = type(v) == 'table' and getmetatable(v)
  return type(mt) == 'table' and classes[rawget(mt, '__typename')] == mt
end

local function fail(fn, message, ...) error(string.format(fn .. ': ' .. message, ...), 3) end

-- The table that holds a dotted name's constructor: _G.nn for 'nn.Linear', _G for 'Foo'.
local function package_of(name, package)
  local prefix, short = name:match('^(.*)%.([^.]+)$')
  if package then return package, short or name end
  if not prefix then return _G, name end
  local t = _G
  for part in prefix:gmatch('[^.]+') do
    if rawget(t, part) == nil then rawset(t, part, {}) end
    t = rawget(t, part)
  end
  return t, short
end

-- Registers a class made elsewhere (the th packages' own) under its Torch7 name.
function M.register(name, class, parent_name)
  rawset(class, '__typename', name)
  classes[name], parents[name] = class, parent_name
  return class
end

-- Torch7's metamethods by method name: a class (or its parent) defining __tostring__,
-- __call__, __unm__, __sub__, __add__, __mul__, __div__, __concat__ gives its objects tostring(obj), obj(...), -obj, a - b
-- (nngraph's module(node) and node - module). Lua looks metamethods up in the metatable
-- itself, so each class holds these, which find the method through the parents.
local function unsupported(event, what)
  return function(a, b)
    local obj = class_object(a) and a or b
    error(string.format('attempt to %s a %s value (its class defines no %s__)', what,
                        M.typename(obj) or type(obj), event), 2)
  end
end

local METAMETHODS = {}
for event, what in pairs({ __call = 'call', __unm = 'negate', __sub = 'subtract', __add = 'add',
                           __mul = 'multiply', __div = 'divide', __concat = 'concatenate' }) do
  local method, fallback = event .. '__', unsupported(event, what)
  METAMETHODS[event] = function(a, ...)
    local obj = class_object(a) and a or ...
    local f = obj[method]
    if f then return f(a, ...) end
    return fallback(a, ...)
  end
end
METAMETHODS.__tostring = function(obj)
  local f = obj.__tostring__
  if f then return f(obj) end
  local mt = getmetatable(obj)
  setmetatable(obj, nil) -- Lua's own 'table: 0x...', for the address
  local address = tostring(obj):match('0x%x+') or '?'
  setmetatable(obj, mt)
  return M.typename(obj) .. ': ' .. address
end

-- torch.class(name[, parent_name][, package]): the new class and its parent's, as Torch7
-- returned them; the constructor goes in the package (or the name's dotted path).
function M.class(name, parent_name, package)
  local fn = 'torch.class'
  if type(parent_name) == 'table' and package == nil then parent_name, package = nil, parent_name end
  if type(name) ~= 'string' or name == '' then fail(fn, "argument 'name' expected a class name, got %s", tostring(name)) end
  if classes[name] then fail(fn, "argument 'name': class '%s' is already defined", name) end
  local parent
  if parent_name ~= nil then
    parent = classes[parent_name]
    if not parent then fail(fn, "argument 'parent' names no known class: '%s'", tostring(parent_name)) end
  end
  local class, constructor
  if parent and type(parent.extend) == 'function' then
    class = parent:extend(name)
    constructor = class
  else
    class = {}
    class.__index = class
    for event, fn in pairs(METAMETHODS) do class[event] = fn end
    if parent then setmetatable(class, { __index = parent }) end
    constructor = setmetatable({}, {
      __index = class,
      __newindex = class,
      __call = function(_, ...)
        local obj = setmetatable({}, class)
        if obj.__init then obj:__init(...) end
        return obj
      end,
    })
  end
  M.register(name, class, parent_name)
  local pkg, short = package_of(name, package)
  rawset(pkg, short, constructor)
  return class, parent
end

-- torch.getmetatable(name): the class registered under the name, or nil.
function M.metatable(name) return classes[name] end

-- torch.typename(obj): its class's name, or nil.
function M.typename(obj)
  local mt = getmetatable(obj)
  return type(mt) == 'table' and rawget(mt, '__typename') or nil
end

-- torch.isTypeOf(obj, name): whether obj's class is name or descends from it.
function M.is_type_of(obj, name)
  local t = M.typename(obj)
  while t do
    if t == name then return true end
    t = parents[t]
  end
  return false
end

-- torch.factory(name): a function making an object of the class without running __init (the
-- .t7 reader fills its fields), or nil for an unknown name.
function M.factory(name)
  local class = classes[name]
  if not class then return nil end
  return function() return setmetatable({}, class) end
end

return M
