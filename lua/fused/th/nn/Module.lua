-- nn.Module as Torch7 had it (torch/nn's Module.lua): state in plain fields (output and
-- gradInput preset to empty tensors, train, weight, gradWeight ...), so that the .t7 reader
-- rebuilds a module from its fields and class name; forward = updateOutput, backward =
-- updateGradInput + accGradParameters. Implemented with fused's native ops only, so that it
-- means the same inside `fused th` and outside.
local fused = require 'fused'
local class = require 'fused.th.class'
local util = require 'fused.th.nn.util'
local nn = require 'fused.th.nn.namespace'

local Module = class.class('nn.Module', nn)

local is_tensor = util.is_tensor

function Module:__init()
  self.gradInput = util.empty()
  self.output = util.empty()
  self._type = util.default_type()
  self.train = true
end

-- {weight, bias}, {gradWeight, gradBias} of those the module has; nil when it has none.
function Module:parameters()
  if self.weight and self.bias then
    return { self.weight, self.bias }, { self.gradWeight, self.gradBias }
  elseif self.weight then
    return { self.weight }, { self.gradWeight }
  elseif self.bias then
    return { self.bias }, { self.gradBias }
  end
end

function Module:updateOutput(input) return self.output end

function Module:forward(input) return self:updateOutput(input) end

function Module:backward(input, gradOutput, scale)
  scale = scale or 1
  self:updateGradInput(input, gradOutput)
  self:accGradParameters(input, gradOutput, scale)
  return self.gradInput
end

function Module:backwardUpdate(input, gradOutput, lr)
  self:updateGradInput(input, gradOutput)
  self:accUpdateGradParameters(input, gradOutput, lr)
  return self.gradInput
end

function Module:updateGradInput(input, gradOutput) return self.gradInput end

function Module:accGradParameters(input, gradOutput, scale) end

-- Torch7's: the parameters move by -lr times this call's gradient, the gradients untouched.
function Module:accUpdateGradParameters(input, gradOutput, lr)
  local gradWeight, gradBias = self.gradWeight, self.gradBias
  self.gradWeight, self.gradBias = self.weight, self.bias
  self:accGradParameters(input, gradOutput, -lr)
  self.gradWeight, self.gradBias = gradWeight, gradBias
end

function Module:sharedAccUpdateGradParameters(input, gradOutput, lr)
  if self:parameters() then
    self:zeroGradParameters()
    self:accGradParameters(input, gradOutput, 1)
    self:updateParameters(lr)
  end
end

function Module:zeroGradParameters()
  local _, grads = self:parameters()
  for _, g in ipairs(grads or {}) do g:zero_() end
end

function Module:updateParameters(learningRate)
  local params, grads = self:parameters()
  for i, p in ipairs(params or {}) do p:add_(grads[i], { alpha = -learningRate }) end
end

function Module:training() self.train = true end

function Module:evaluate() self.train = false end

-- Each name's tensor in self becomes a view of the same field of mlp (Torch7's set): the
-- two modules then hold one memory, whoever else holds self's tensor included.
function Module:share(mlp, ...)
  for i = 1, select('#', ...) do
    local name = select(i, ...)
    if self[name] ~= nil then util.set(self[name], mlp[name]) end
  end
  return self
end

-- Every tensor reachable from v (tables, modules, at any depth), once each.
local function collect_tensors(v, list, seen)
  if is_tensor(v) then
    list[#list + 1] = v
  elseif type(v) == 'table' and not seen[v] then
    seen[v] = true
    for k, x in pairs(v) do
      collect_tensors(k, list, seen)
      collect_tensors(x, list, seen)
    end
  end
  return list
end

-- A deep copy of v, tables with their metatables (classes) kept, each tensor in `copies`.
local function copy_value(v, copies, seen)
  if is_tensor(v) then return copies[v] end
  if type(v) ~= 'table' then return v end
  if seen[v] then return seen[v] end
  local c = {}
  seen[v] = c
  for k, x in pairs(v) do c[copy_value(k, copies, seen)] = copy_value(x, copies, seen) end
  return setmetatable(c, getmetatable(v))
end

-- A deep copy (Torch7's, by serialising) whose tensors that shared memory share the copy's;
-- with names, their tensors shared with self instead (clone('weight', 'bias', 'gradWeight',
-- 'gradBias')), in every module inside too.
function Module:clone(...)
  local copies = {}
  for _, g in ipairs(util.storage_groups(collect_tensors(self, {}, {}))) do
    local base = util.span_view(g):clone()
    for t, offset in pairs(g.offsets) do copies[t] = util.view_like(base, offset, t) end
  end
  local clone = copy_value(self, copies, {})
  if select('#', ...) > 0 then clone:share(self, ...) end
  return clone
end

-- Converts every tensor field (at any depth) to Torch7's type `name` ('torch.FloatTensor',
-- 'torch.CudaTensor' ...); without it, the module's type name.
function Module:type(name, tensorCache)
  if name == nil then return self._type end
  local to = util.TYPES[name]
  if not to then error(string.format("%s:type: argument 'type' expected one of Torch7's floating tensor types "
                                     .. "('torch.FloatTensor', 'torch.DoubleTensor', 'torch.CudaTensor', "
                                     .. "'torch.CudaDoubleTensor'), got %s", class.typename(self), tostring(name)), 2) end
  tensorCache = tensorCache or {}
  local function convert(v, seen)
    if is_tensor(v) then -- indices (int64, bool) keep their dtype
      local floating = v.dtype == 'float32' or v.dtype == 'float64'
      tensorCache[v] = tensorCache[v] or v:to(floating and to[1] or v.dtype, to[2])
      return tensorCache[v]
    end
    if type(v) ~= 'table' or seen[v] then return v end
    seen[v] = true
    if v ~= self and type(v.type) == 'function' and class.is_type_of(v, 'nn.Module') then
      v:type(name, tensorCache)
      return v
    end
    for k, x in pairs(v) do v[k] = convert(x, seen) end
    return v
  end
  convert(self, {})
  self._type = name
  return self
end

function Module:float(...) return self:type('torch.FloatTensor', ...) end
function Module:double(...) return self:type('torch.DoubleTensor', ...) end
function Module:cuda(...) return self:type('torch.CudaTensor', ...) end

function Module:reset() end

-- Points every tensor of `tensors` into one new flat tensor (Torch7's Module.flatten): those
-- that shared memory share it there too, at the same offsets; the tensors stay the same Lua
-- objects, so the modules (and their clones) now read and write the flat tensor.
local function flatten(tensors, fn, what)
  if #tensors == 0 then return fused.empty({ 0 }, util.options()) end
  local first = tensors[1]
  for _, t in ipairs(tensors) do
    if t.dtype ~= first.dtype or t.device ~= first.device then
      error(string.format('%s: the %s mix %s on %s with %s on %s (convert the module with :type first)',
                          fn, what, first.dtype, first.device, t.dtype, t.device), 3)
    end
  end
  local groups, total = util.storage_groups(tensors), 0
  for _, g in ipairs(groups) do total = total + g.span end
  local flat = fused.zeros({ total }, { dtype = first.dtype, device = first.device })
  local base = 0
  for _, g in ipairs(groups) do
    flat:narrow(1, base + 1, g.span):copy_(util.span_view(g))
    for t, offset in pairs(g.offsets) do util.set(t, util.view_like(flat, base + offset, t)) end
    base = base + g.span
  end
  return flat
end

-- One flat tensor of every parameter and one of every gradient, which the module's own
-- tensors view: an optimizer step on the flat parameters moves the module (a tensor shared
-- by several modules, once). Call it once, after type(): a later type() makes new tensors.
function Module:getParameters()
  local fn = class.typename(self) .. ':getParameters'
  local params, grads = self:parameters()
  local flatParameters = flatten(params or {}, fn, 'parameters')
  local flatGradParameters = flatten(grads or {}, fn, 'gradients')
  if flatParameters:numel() ~= flatGradParameters:numel() then
    error(string.format('%s: the parameters (%d elements) and their gradients (%d) are not laid out alike: '
                        .. "a module sharing weight or bias must share gradWeight or gradBias too "
                        .. "(clone('weight', 'bias', 'gradWeight', 'gradBias'))", fn,
                        flatParameters:numel(), flatGradParameters:numel()), 2)
  end
  return flatParameters, flatGradParameters
end

function Module:listModules()
  local modules = { self }
  for _, m in ipairs(self.modules or {}) do
    for _, sub in ipairs(m:listModules()) do modules[#modules + 1] = sub end
  end
  return modules
end

-- The modules of class typename inside this one (itself included), and the container of each.
function Module:findModules(typename, container)
  container = container or self
  local nodes, containers = {}, {}
  if class.typename(self) == typename then
    nodes[1], containers[1] = self, container
  end
  for _, child in ipairs(self.modules or {}) do
    local n, c = child:findModules(typename, self)
    for i = 1, #n do
      nodes[#nodes + 1], containers[#containers + 1] = n[i], c[i]
    end
  end
  return nodes, containers
end

function Module:apply(callback)
  callback(self)
  for _, m in ipairs(self.modules or {}) do m:apply(callback) end
end

-- Torch7's: the module with output and gradInput emptied (and any other field named).
function Module:clearState(...)
  for _, name in ipairs({ 'output', 'gradInput', ... }) do
    local v = self[name]
    if is_tensor(v) then self[name] = fused.empty({ 0 }, { dtype = v.dtype, device = v.device })
    elseif type(v) == 'table' then self[name] = {} end
  end
  return self
end

function Module:__tostring__() return class.typename(self) end

return Module
