-- A chain of modules, each taking the one before's output, as Torch7's and PyTorch's.
--
--   local model = fused.nn.Sequential():add(fused.nn.Linear(4, 8)):add(fused.nn.ReLU())
--   local model = fused.nn.Sequential(fused.nn.Linear(4, 8), fused.nn.ReLU())  -- the same
--   local y = model:forward(x)
--   local d_x = model:backward(d_y)       -- from the last module to the first
--
-- model.modules is the list. Parameters are named by position from 0 as PyTorch's ('0.weight',
-- '1.bias'), so that a state_dict loads into torch.nn.Sequential; tostring counts from 1, as
-- Torch7 prints and as Lua indexes model.modules.
local Module = require 'fused.nn.Module'
local calls = require 'fused.nn.calls'
local inputs = require 'fused.nn.inputs'
local blame = require 'fused.blame'

local Sequential = Module:extend('Sequential')

local function is_module(m)
  return type(m) == 'table' and type(m.forward) == 'function' and type(m.backward) == 'function'
    and type(m.parameters) == 'function'
end

-- arg: how the error names the argument ("argument 'module'" by default).
local function expect_module(module, fn, arg)
  if not is_module(module) then
    local list = type(module) == 'table' and is_module(module[1])
      and ' (a list of modules: write Sequential(unpack(list)))' or ''
    blame(string.format("%s: %s expected a fused.nn module, got %s%s", fn, arg or "argument 'module'",
                        type(module) == 'table' and 'a table that is not one' or type(module), list))
  end
end

-- An index into the chain, 1 to #modules (to #modules + 1 where `after` allows the end).
local function expect_index(self, index, fn, after)
  local last = #self.modules + (after and 1 or 0)
  if type(index) ~= 'number' or index ~= math.floor(index) or index < 1 or index > last then
    blame(string.format("%s: argument 'index' expected 1..%d, got %s", fn, last,
                        type(index) == 'number' and tostring(index) or type(index)))
  end
  return index
end

function Sequential:__init(...)
  self.modules = {}
  for i = 1, select('#', ...) do
    local module = select(i, ...)
    expect_module(module, 'Sequential', 'argument ' .. i)
    self.modules[i] = module
  end
end

function Sequential:add(module, ...)
  inputs.no_more('Sequential:add', 1, ...) -- Torch7's add takes no index: insert(module, index)
  expect_module(module, 'Sequential:add')
  self.modules[#self.modules + 1] = module
  return self
end

-- Torch7's Container methods: insert(module[, index]) (at the end by default), remove([index])
-- (the last by default; returns the module), get(index), size().
function Sequential:insert(module, index, ...)
  inputs.no_more('Sequential:insert', 2, ...)
  expect_module(module, 'Sequential:insert')
  table.insert(self.modules, expect_index(self, index or #self.modules + 1, 'Sequential:insert', true), module)
  return self
end

function Sequential:remove(index, ...)
  inputs.no_more('Sequential:remove', 1, ...)
  return table.remove(self.modules, expect_index(self, index or #self.modules, 'Sequential:remove'))
end

function Sequential:get(index, ...)
  inputs.no_more('Sequential:get', 1, ...)
  return self.modules[expect_index(self, index, 'Sequential:get')]
end

function Sequential:size(...)
  inputs.no_more('Sequential:size', 0, ...)
  return #self.modules
end

-- Each module's input is kept, so that backward goes back through the calls this forward made
-- (Torch7's form names a call by its input), whatever else called the modules in between; a
-- look-alike table that is no Module gets the gradient alone. A module with several results
-- passes its first on.
local function first_and_count(...) return (...), select('#', ...) end

function Sequential:forward(x, ...)
  inputs.no_more('Sequential:forward', 1, ...)
  local s = self.saved or { inputs = {}, several = {} } -- a free slot's lists, reused
  local inputs, several = s.inputs, s.several
  for i, module in ipairs(self.modules) do
    inputs[i] = x
    local n
    x, n = first_and_count(module:forward(x))
    several[i] = n > 1
  end
  self.saved = s
  return x
end

function Sequential:backward(d_y)
  local s = self:expect_saved()
  for i = #self.modules, 1, -1 do
    local m = self.modules[i]
    if calls.wraps(m.backward) then
      d_y = m:backward(s.inputs[i], s.several[i] and { d_y } or d_y)
    else
      d_y = m:backward(d_y)
    end
  end
  return d_y
end

function Sequential:children()
  local names = {}
  for i = 1, #self.modules do names[i] = tostring(i - 1) end
  return { unpack(self.modules) }, names
end

function Sequential:__tostring()
  local positions = {}
  for i = 1, #self.modules do positions[i] = i end
  return self:describe(self.modules, positions)
end

return Sequential
