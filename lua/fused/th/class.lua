-- Torch7's class registry, behind torch.class, torch.getmetatable, torch.typename,
-- torch.isTypeOf and torch.factory: a class is known by its name ('nn.Linear'), and the .t7
-- reader makes objects from the names it reads. A class whose parent is one of fused's modules
-- is made by the parent's extend (so nn/calls.lua wraps its forward and backward as for any
-- module); any other is Torch7's plain metatable, its methods found through the parent's.
local M = {}

local classes, parents = {}, {}

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
