-- nn.Container: a module holding others in self.modules (Torch7's Container.lua). A module of
-- fused's own (fused.nn.LSTM, a defined cell's nn.RNN) added to one is held through
-- nn.Native, which gives it Torch7's protocol.
local class = require 'fused.th.class'
local nn = require 'fused.th.nn.namespace'

local Container, parent = class.class('nn.Container', 'nn.Module', nn)

function Container:__init(...)
  parent.__init(self, ...)
  self.modules = {}
end

-- fused's own modules are wrapped: they have no Torch7 training() or type().
function Container.adopt(module, fn)
  if class.is_type_of(module, 'nn.Module') then return module end
  if type(module) == 'table' and type(module.named_parameters) == 'function' then return nn.Native(module) end
  error(string.format("%s: argument 'module' expected an nn module, got %s", fn,
                      class.typename(module) or type(module)), 3)
end

function Container:add(module)
  self.modules[#self.modules + 1] = Container.adopt(module, class.typename(self) .. ':add')
  return self
end

function Container:get(index) return self.modules[index] end

function Container:size() return #self.modules end

function Container:applyToModules(fn)
  for _, module in ipairs(self.modules) do fn(module) end
end

function Container:zeroGradParameters() self:applyToModules(function(m) m:zeroGradParameters() end) end

function Container:updateParameters(lr) self:applyToModules(function(m) m:updateParameters(lr) end) end

function Container:training()
  self:applyToModules(function(m) m:training() end)
  parent.training(self)
end

function Container:evaluate()
  self:applyToModules(function(m) m:evaluate() end)
  parent.evaluate(self)
end

function Container:share(mlp, ...)
  for i = 1, #self.modules do self.modules[i]:share(mlp.modules[i], ...) end
  return self
end

function Container:reset(stdv) self:applyToModules(function(m) m:reset(stdv) end) end

-- Every module's parameters and gradients, in the modules' order.
function Container:parameters()
  local w, gw = {}, {}
  for _, m in ipairs(self.modules) do
    local mw, mgw = m:parameters()
    for i = 1, #(mw or {}) do w[#w + 1], gw[#gw + 1] = mw[i], mgw[i] end
  end
  return w, gw
end

function Container:clearState(...)
  parent.clearState(self, ...)
  self:applyToModules(function(m) m:clearState() end)
  return self
end

-- Children printed one a line under the container's name, as Torch7 printed a model.
function Container:describe(arrow)
  local lines = { class.typename(self) .. ' {' }
  if arrow then
    local steps = { 'input' }
    for i = 1, #self.modules do steps[#steps + 1] = '(' .. i .. ')' end
    steps[#steps + 1] = 'output'
    lines[2] = '  [' .. table.concat(steps, ' -> ') .. ']'
  end
  for i, m in ipairs(self.modules) do
    lines[#lines + 1] = '  (' .. i .. '): ' .. tostring(m):gsub('\n', '\n  ')
  end
  lines[#lines + 1] = '}'
  return table.concat(lines, '\n')
end

function Container:__tostring__() return self:describe(false) end

return Container
