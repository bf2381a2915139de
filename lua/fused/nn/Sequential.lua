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

local Sequential = Module:extend('Sequential')

function Sequential:__init(...)
  self.modules = {}
  for i = 1, select('#', ...) do self:add((select(i, ...))) end
end

local function is_module(m)
  return type(m) == 'table' and type(m.forward) == 'function' and type(m.backward) == 'function'
    and type(m.parameters) == 'function'
end

function Sequential:add(module)
  if not is_module(module) then
    error(string.format("Sequential:add: argument 'module' expected a fused.nn module, got %s",
                        type(module) == 'table' and 'a table that is not one' or type(module)), 2)
  end
  self.modules[#self.modules + 1] = module
  return self
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
