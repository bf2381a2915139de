-- nn.Native(module): one of fused's own modules (fused.nn.LSTM, a defined cell's nn.RNN,
-- fused.nn.Linear) with Torch7's protocol, so that it sits in a Torch7 container: its
-- forward, Torch7's backward(input, gradOutput, scale), its parameters; training() and
-- evaluate() are its train() and eval(), type() its to(). Containers wrap such a module
-- when it is added.
local class = require 'fused.th.class'
local util = require 'fused.th.nn.util'
local nn = require 'fused.th.nn.namespace'

local Native, parent = class.class('nn.Native', 'nn.Module', nn)

function Native:__init(module)
  parent.__init(self)
  if type(module) ~= 'table' or type(module.named_parameters) ~= 'function' then
    error("nn.Native: argument 'module' expected a module of fused.nn, got " .. (class.typename(module) or type(module)), 3)
  end
  self.module = module
end

function Native:updateOutput(input)
  self.output = self.module:forward(input)
  return self.output
end

function Native:updateGradInput(input, gradOutput)
  self.gradInput = self.module:updateGradInput(input, gradOutput)
  return self.gradInput
end

function Native:accGradParameters(input, gradOutput, scale)
  self.module:accGradParameters(input, gradOutput, scale or 1)
end

function Native:backward(input, gradOutput, scale)
  self.gradInput = self.module:backward(input, gradOutput, scale or 1)
  return self.gradInput
end

function Native:parameters()
  local params, grads = self.module:parameters()
  if #params > 0 then return params, grads end
end

function Native:training()
  self.module:train()
  parent.training(self)
end

function Native:evaluate()
  self.module:eval()
  parent.evaluate(self)
end

function Native:type(name)
  if name == nil then return self._type end
  local to = util.TYPES[name]
  if not to then error("nn.Native:type: argument 'type' expected one of Torch7's floating tensor types, got " .. tostring(name), 2) end
  self.module:to(to[1], to[2])
  self.output, self.gradInput = util.empty(name), util.empty(name)
  self._type = name
  return self
end

function Native:clearState()
  self.module:clearState()
  return parent.clearState(self)
end

function Native:__tostring__() return 'nn.Native(' .. tostring(self.module) .. ')' end

return Native
