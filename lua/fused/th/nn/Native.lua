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

-- A tensor input is forward's one argument, and the output forward's first result (a
-- sequence layer's hs: its final states stay inside, as Torch7's recurrent modules kept
-- them); a table input is forward's arguments (a cell's {x, h, c}), and the output the table
-- of its results ({h, c}), gradOutput and gradInput tables too.
local function results(self, ...)
  self.nresults = select('#', ...)
  return self.spread and { ... } or (...)
end

function Native:updateOutput(input)
  self.spread = not util.is_tensor(input)
  self.output = results(self, self.module:forward(unpack(self.spread and input or { input })))
  return self.output
end

-- The arguments of the module's Torch7 forms: the call's first input, and the gradients as a
-- list when forward gave several results.
local function torch7_args(self, input, gradOutput)
  local first = self.spread and input[1] or input
  if self.nresults > 1 then return first, self.spread and gradOutput or { gradOutput } end
  return first, gradOutput
end

local function gradient(self, ...)
  return self.spread and { ... } or (...)
end

function Native:updateGradInput(input, gradOutput)
  local first, g = torch7_args(self, input, gradOutput)
  self.gradInput = gradient(self, self.module:updateGradInput(first, g))
  return self.gradInput
end

function Native:accGradParameters(input, gradOutput, scale)
  local first, g = torch7_args(self, input, gradOutput)
  self.module:accGradParameters(first, g, scale or 1)
end

function Native:backward(input, gradOutput, scale)
  local first, g = torch7_args(self, input, gradOutput)
  self.gradInput = gradient(self, self.module:backward(first, g, scale or 1))
  return self.gradInput
end

-- The parameters step by -lr times this call's gradient; the gradients are left as they were.
function Native:accUpdateGradParameters(input, gradOutput, lr)
  local params, grads = self:parameters()
  if not params then return end
  local kept = {}
  for i, g in ipairs(grads) do kept[i] = g:clone() g:zero_() end
  self:accGradParameters(input, gradOutput, 1)
  for i, p in ipairs(params) do
    p:add_(grads[i], { alpha = -lr })
    grads[i]:copy_(kept[i])
  end
end

function Native:parameters()
  local params, grads = self.module:parameters()
  if #params > 0 then return params, grads end
end

-- Torch7's share(mlp, 'weight', 'bias', 'gradWeight', 'gradBias'): each parameter named
-- weight* (bias*), and with gradWeight (gradBias) its gradient, points at mlp's, in place.
local SHARED = { weight = { 'weight', 1 }, bias = { 'bias', 1 }, gradWeight = { 'weight', 2 }, gradBias = { 'bias', 2 } }

function Native:share(mlp, ...)
  local theirs = {}
  for name, p, g in mlp.module:named_parameters() do theirs[name] = { p, g } end
  for i = 1, select('#', ...) do
    local what = SHARED[select(i, ...)]
    if what then
      for name, p, g in self.module:named_parameters() do
        local other = theirs[name]
        if other and name:sub(1, #what[1]) == what[1] then util.set(what[2] == 1 and p or g, other[what[2]]) end
      end
    end
  end
  return self
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
