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

function Sequential:forward(x)
  for _, module in ipairs(self.modules) do x = module:forward(x) end
  return x
end

function Sequential:backward(d_y)
  for i = #self.modules, 1, -1 do d_y = self.modules[i]:backward(d_y) end
  return d_y
end

function Sequential:children()
  local names = {}
  for i = 1, #self.modules do names[i] = tostring(i - 1) end
  return { unpack(self.modules) }, names
end

-- Module's shared_clone, with each module in the list a shared_clone of the original's.
function Sequential:shared_clone(into)
  local earlier = into and into.modules or {}
  local c = Module.shared_clone(self, into)
  c.modules = {}
  for i, m in ipairs(self.modules) do c.modules[i] = m:shared_clone(earlier[i]) end
  return c
end

function Sequential:__tostring()
  local positions = {}
  for i = 1, #self.modules do positions[i] = i end
  return self:describe(self.modules, positions)
end

return Sequential
