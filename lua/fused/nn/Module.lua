-- The base of every module, in the Torch7 spirit: forward computes and keeps what backward
-- needs; backward returns the input gradients and ADDS into the parameter gradients.
-- forward's results and backward's gradients are the module's buffers (self.buffers, passed
-- back to the ops as {out = ...}), one set per call waiting for its backward (nn/calls.lua):
-- a slot is reused once its call has gone back, so a step with the shapes of the last
-- allocates nothing. :clone() keeps a result past that.
--
--   local Cell = Module:extend('Cell')
--   function Cell:__init(...)              -- called by Cell(...)
--     self:parameter('weight', { n, m }, opts):uniform(-b, b) -- self.weight, self.grad.weight
--   end
--   function Cell:forward(...) ... end
--   function Cell:backward(...) ... end    -- or none: derived from forward's ops (autograd/)
-- or, Torch7's protocol, updateOutput, updateGradInput and accGradParameters (Module:forward).
local dt = require 'fused.dtype'
local options = require 'fused.options'
local argcheck = require 'fused.check'
local factory = require 'fused.factory'
local tensor = require 'fused.tensor'
local inputs = require 'fused.nn.inputs'
local blame = require 'fused.blame'
local calls = require 'fused.nn.calls'
local gradients = require 'fused.nn.gradients'
local tree = require 'fused.nn.tree'

local Module = { __name = 'Module' }
Module.__index = Module

-- Lua's metamethods a class may define for its instances (kept in the class itself, where Lua
-- looks for them).
local METAMETHODS = { __tostring = true, __call = true, __eq = true, __lt = true, __le = true,
                      __len = true, __concat = true }

-- A subclass: calling it makes an instance and runs __init. Its methods live in a table behind
-- it, so that every definition, a redefinition in the REPL too, passes __newindex: the forward
-- and backward it defines are wrapped by nn/calls.lua, which keeps each call's state apart.
function Module:extend(name)
  local methods = setmetatable({}, { __index = self })
  local class = setmetatable({ __name = name }, {
    __index = methods,
    __call = function(cls, ...)
      local obj = setmetatable({ buffers = {} }, cls)
      obj:__init(...)
      return obj
    end,
    __newindex = function(cls, k, v)
      if (k == 'forward' or k == 'backward') and type(v) == 'function' then v = calls['wrap_' .. k](v) end
      if METAMETHODS[k] then rawset(cls, k, v) else methods[k] = v end
    end,
  })
  rawset(class, '__index', class)
  rawset(class, '__tostring', self.__tostring)
  rawset(class, '__call', self.__call)
  return class
end

-- Modules without an __init of their own take no arguments: MSELoss({reduction = 'sum'}) is
-- an error, not a silent mean.
function Module:__init(...)
  if select('#', ...) > 0 then
    error(string.format('%s: expected no arguments, got %d', self.__name, select('#', ...)), 3)
  end
end

-- At most this many calls of one module wait for their backward (nn/calls.lua): the forward
-- past it forgets the oldest. A field: set it on a module, or here for all.
Module.max_pending = 64

-- Torch7's protocol, for a module that defines updateOutput(input) and updateGradInput(input,
-- gradOutput) (and accGradParameters(input, gradOutput, scale) when it has parameters) rather
-- than forward and backward: forward sets self.output, backward self.gradInput. backward takes
-- Torch7's (input, gradOutput[, scale]) or the gradient alone (nn/calls.lua decides which and
-- finds the call; scale reaches accGradParameters).
Module.forward = calls.wrap_forward(function(self, input)
  if not self.updateOutput then blame(self.__name .. ':forward is not implemented') end
  self.saved = { input = input }
  self.output = self:updateOutput(input)
  return self.output
end)

Module.backward = calls.wrap_backward(function(self, gradOutput, scale)
  local input = self.saved.input
  self.gradInput = self:updateGradInput(input, gradOutput)
  self:accGradParameters(input, gradOutput, scale)
  return self.gradInput
end, function(self)
  if not self.updateOutput then blame(self.__name .. ':backward is not implemented') end
end)

calls.base = Module

-- Torch7's two halves of backward, for every module: on a module of fused's, the input
-- gradient of the call that `input` names (the parameters' gradients untouched), then
-- scale times that call's parameter gradients added in. A module of Torch7's protocol defines
-- its own (or, with updateOutput only, has them derived: autograd/modules.lua); one without
-- parameters needs no accGradParameters (this one does nothing for it).
function Module:updateGradInput(input, gradOutput, ...)
  if self.updateOutput and not calls.derives(self) then blame(self.__name .. ':updateGradInput is not implemented') end
  return calls.update_grad_input(self, input, gradOutput, ...)
end

function Module:accGradParameters(input, gradOutput, scale, ...)
  if self.updateOutput and not calls.derives(self) then return end
  calls.acc_grad_parameters(self, input, gradOutput, scale, ...)
end

-- Modules held in fields, and in lists and tables in fields, in a stable order (fields by
-- name), and their names. Per-call state (buffers: Recurrent's step clones) is not a child.
function Module:children()
  local list, names = {}, {}
  tree.collect(self, '', list, names, {}, calls.PRIVATE)
  return list, names
end

-- Torch7's names for the gradients of the parameters it named weight and bias: aliases, the
-- same tensors as grad.weight and grad.bias, so that Torch7's code and parameters()'s
-- {gradWeight, gradBias} read as they did.
local TORCH7_GRAD = { weight = 'gradWeight', bias = 'gradBias' }

-- Declares the parameter `name`: a tensor of `shape` (opts: dtype, device, as a factory's),
-- zeros until the caller initialises it, at self[name], with its gradient, zeros of the same
-- shape, dtype and device, at self.grad[name] (and self.gradWeight, self.gradBias for weight
-- and bias). Names are PyTorch's (weight, bias_hh_l1_reverse); named_parameters lists them in
-- the order declared. Returns the parameter:
--   self:parameter('weight', { out_features, in_features }, opts):uniform(-bound, bound)
function Module:parameter(name, shape, opts)
  local fn = self.__name .. ':parameter'
  if type(name) ~= 'string' or not name:match('^[%a_][%w_]*$') then
    error(string.format("%s: argument 'name' expected an identifier (a string), got %s", fn,
                        type(name) == 'string' and "'" .. name .. "'" or argcheck.type_name(name)), 2)
  end
  self.grad = self.grad or {}
  if self.grad[name] then
    error(string.format("%s: argument 'name': '%s' is already a parameter", fn, name), 2)
  end
  argcheck.parse_shape(shape, fn) -- a bad shape or option is this function's error, not zeros'
  dt.parse(opts, fn, 3)
  local p = factory.zeros(shape, opts)
  self[name], self.grad[name] = p, factory.zeros(shape, opts)
  gradients.register(p, self.grad[name])
  if TORCH7_GRAD[name] then self[TORCH7_GRAD[name]] = self.grad[name] end
  self.parameter_names = self.parameter_names or {}
  self.parameter_names[#self.parameter_names + 1] = name
  return p
end

-- The gradient of the parameter `name` (self[name]): the one registered with the tensor, so
-- that a parameter assigned from another module (decoder.weight = encoder.weight) shares its
-- gradient; a tensor assigned by hand that no module registered gets a gradient of its own,
-- zeros (a module of Torch7's protocol: the gradWeight or gradBias it set by hand).
-- self.grad[name] (or gradWeight and gradBias) is pointed at it.
local function gradient_of(self, name, torch7)
  local p = self[name]
  if not argcheck.is_tensor(p) then
    blame(string.format("%s: parameter '%s' expected a tensor, got %s", self.__name, name,
                        argcheck.type_name(p)))
  end
  local mine = torch7 and self[TORCH7_GRAD[name]] or self.grad[name]
  local g = gradients.of(p)
  if g == nil then
    g = torch7 and mine or tensor.empty_like(p):zero_()
    gradients.register(p, g or false) -- false: a parameter without a gradient
  end
  if not g then return nil end
  if not rawequal(g, mine) then
    if not torch7 then self.grad[name] = g end
    if TORCH7_GRAD[name] then self[TORCH7_GRAD[name]] = g end
  end
  return g
end

-- The module's own parameters (not its children's) as {name, parameter, gradient}: those that
-- parameter() declared, in order; a module written to Torch7's protocol that declared none has
-- the weight and bias it set by hand, with its gradWeight and gradBias.
local function own_parameters(self)
  local list = {}
  if self.parameter_names then
    for i, name in ipairs(self.parameter_names) do list[i] = { name, self[name], gradient_of(self, name) } end
  else
    for _, name in ipairs({ 'weight', 'bias' }) do
      if argcheck.is_tensor(self[name]) then list[#list + 1] = { name, self[name], gradient_of(self, name, true) } end
    end
  end
  return list
end

-- Points each parameter's gradient field at its registered gradient: forward and backward
-- call it (nn/calls.lua), so a tie made after construction holds whichever runs first.
function Module:sync_parameters()
  if self.parameter_names then
    for _, name in ipairs(self.parameter_names) do gradient_of(self, name) end
  else
    for name in pairs(TORCH7_GRAD) do
      if argcheck.is_tensor(self[name]) then gradient_of(self, name, true) end
    end
  end
end

-- Every parameter under every name it has (a tied one under each), in named_parameters' order.
local function all_parameters(self, prefix, list)
  for _, e in ipairs(own_parameters(self)) do list[#list + 1] = { prefix .. e[1], e[2], e[3] } end
  local children, names = self:children()
  for i, child in ipairs(children) do
    if getmetatable(child) and child.sync_parameters then
      all_parameters(child, prefix .. names[i] .. '.', list)
    else -- a module made elsewhere: its own list
      for name, p, g in child:named_parameters() do list[#list + 1] = { prefix .. names[i] .. '.' .. name, p, g } end
    end
  end
  return list
end

-- for name, param, grad in module:named_parameters(): the module's own parameters, then those
-- of each child prefixed by its field name and a dot ('rnn.weight'), as PyTorch's
-- named_parameters; a parameter held under several names (tied) is listed once, under the
-- first. parameters(), state_dict(), load_state_dict(), zero_grad(), to() and the optimizers'
-- positions all follow this list.
function Module:named_parameters()
  local list, seen = {}, {}
  for _, e in ipairs(all_parameters(self, '', {})) do
    if not seen[e[2]] then
      seen[e[2]] = true
      list[#list + 1] = e
    end
  end
  local i = 0
  return function()
    i = i + 1
    if list[i] then return list[i][1], list[i][2], list[i][3] end
  end
end

-- {weight, bias, ...}, {grad.weight, grad.bias, ...} (for Linear, Torch7's {weight, bias},
-- {gradWeight, gradBias}) in named_parameters' order.
function Module:parameters()
  local params, grads = {}, {}
  for _, p, g in self:named_parameters() do params[#params + 1], grads[#grads + 1] = p, g end
  return params, grads
end

-- {name = parameter} (the live tensors, not copies), for a checkpoint.
function Module:state_dict()
  local state = {}
  for name, p in self:named_parameters() do state[name] = p end
  return state
end

local function shape_text(t) return '[' .. table.concat(t:shape(), ', ') .. ']' end

-- Copies the tensors of state (converted to each parameter's dtype and device) into the
-- parameters of the same names; a shape that differs is an error. Strict (the default, as
-- PyTorch's strict=True): a missing or an unexpected key is an error too. One error names
-- every key that does not fit, and nothing is copied unless all do. A tied parameter loads
-- from any of its names: state_dict() names it once, PyTorch's names it under each (both
-- accepted; given twice, the values must be equal). Returns the missing and the unexpected
-- names (sorted lists: empty when strict), as {strict = false} allows them.
function Module:load_state_dict(state, opts)
  local fn = self.__name .. ':load_state_dict'
  opts = options.check(opts, fn, { 'strict' })
  if type(state) ~= 'table' then
    error(string.format("%s: argument 'state_dict' expected a table {name = tensor}, got %s", fn,
                        argcheck.type_name(state)), 2)
  end
  local strict = opts.strict ~= false
  local problems, missing, unexpected, known = {}, {}, {}, {}
  local groups, group_of = {}, {} -- {names..., p = parameter}, one per tensor
  for _, e in ipairs(all_parameters(self, '', {})) do
    local name, p = e[1], e[2]
    known[name] = true
    local group = group_of[p]
    if not group then
      group = { p = p }
      group_of[p], groups[#groups + 1] = group, group
    end
    group[#group + 1] = name
  end
  for _, group in ipairs(groups) do
    local p, given = group.p, {}
    for _, name in ipairs(group) do
      local src = state[name]
      if src ~= nil then
        given[#given + 1] = name
        if not argcheck.is_tensor(src) or shape_text(src) ~= shape_text(p) then
          problems[#problems + 1] = string.format("key '%s' expected shape %s, got %s", name, shape_text(p),
                                                  argcheck.is_tensor(src) and shape_text(src) or argcheck.type_name(src))
        end
      end
    end
    if #given == 0 then
      missing[#missing + 1] = group[1]
      if strict then
        problems[#problems + 1] = string.format("missing key '%s' (expected shape %s)", group[1], shape_text(p))
      end
    end
    local first = state[given[1]]
    for i = 2, #given do
      local other = state[given[i]]
      if argcheck.is_tensor(first) and argcheck.is_tensor(other) and shape_text(first) == shape_text(other)
         and not rawequal(first, other) and other:to(first.dtype, first.device):ne(first):sum() > 0 then
        problems[#problems + 1] = string.format("keys '%s' and '%s' name one tied parameter and hold "
                                                .. 'different values', given[1], given[i])
      end
    end
    group.source = first
  end
  for name, src in pairs(state) do
    if not known[name] then
      unexpected[#unexpected + 1] = tostring(name)
      if strict then
        problems[#problems + 1] = string.format("unexpected key '%s' (got %s)", tostring(name),
          argcheck.is_tensor(src) and 'shape ' .. shape_text(src) or argcheck.type_name(src))
      end
    end
  end
  if #problems > 0 then
    table.sort(problems) -- pairs' order is not stable
    error(string.format("%s: argument 'state_dict' does not fit the module: %s", fn,
                        table.concat(problems, '; ')), 2)
  end
  table.sort(unexpected)
  for _, group in ipairs(groups) do
    local p = group.p
    if group.source ~= nil then p:copy_(group.source:to(p.dtype, p.device)) end
  end
  return missing, unexpected
end

-- m(...) is m:forward(...), as a PyTorch module's call.
function Module:__call(...) return self:forward(...) end

-- Zeroes every parameter gradient (PyTorch's name; zeroGradParameters is Torch7's).
function Module:zero_grad(...)
  inputs.no_more(self.__name .. ':zero_grad', 0, ...)
  local _, grads = self:parameters()
  for _, g in ipairs(grads) do g:zero() end
  return self
end
Module.zeroGradParameters = Module.zero_grad

-- The buffer `name` to pass as an op's out: nil (the op allocates it) unless it has like's
-- dtype and device; a criterion meets inputs of any.
function Module:buffer(name, like)
  local t = self.buffers[name]
  if t and t.scalar_type == like.scalar_type and t.device_type == like.device_type then return t end
end

-- The buffer `name` of shape `shape` with like's dtype and device, for a result written piece by
-- piece (no single op's out); made anew, and then zeroed when `zero`, if it has another.
function Module:buffer_shaped(name, shape, like, zero)
  local t = self:buffer(name, like)
  local same = t and t.ndim == #shape
  for d = 1, #shape do same = same and t.sizes[d - 1] == shape[d] end
  if not same then
    t = factory.empty(shape, { dtype = like.dtype, device = like.device })
    if zero then t:zero_() end
    self.buffers[name] = t
  end
  return t
end

-- t, or a copy of it when it shares memory with the running call's buffers (h_T of a call gone
-- back, fed back as h0 into the call reusing its slot): forward overwrites them, and backward
-- needs its inputs as they were.
function Module:unshared(t)
  if not argcheck.is_tensor(t) then return t end
  for _, b in pairs(self.buffers) do
    if argcheck.is_tensor(b) and b.storage == t.storage then return t:clone() end
  end
  return t
end

-- A module of this one's class that shares its parameters and their gradients (the same
-- tensors) and its other fields (sizes, options, a cell's definition), with buffers of its own
-- and each module it holds (in a field, a list or a table, at any depth) a shared_clone of
-- the original's, as Torch7's clone('weight', 'bias', 'gradWeight', 'gradBias'); into, an
-- earlier clone, is re-pointed at the current parameters instead. Tensors other than the
-- parameters and gradients (Torch7's output) are not shared, nor calls waiting for backward.
function Module:shared_clone(into)
  local c = into or setmetatable({ buffers = {} }, getmetatable(self))
  local seen = {}
  for k, v in pairs(self) do
    if not calls.PRIVATE[k] and not argcheck.is_tensor(v) then c[k] = tree.clone_value(v, c[k], seen) end
  end
  for _, e in ipairs(own_parameters(self)) do
    c[e[1]] = e[2]
    if TORCH7_GRAD[e[1]] then c[TORCH7_GRAD[e[1]]] = e[3] end
  end
  return c
end

-- Drops every call waiting for backward and the buffers (Torch7's output and gradInput too),
-- in this module and its children: a backward after this is an error.
function Module:clearState(...)
  inputs.no_more(self.__name .. ':clearState', 0, ...)
  calls.clear(self)
  for _, child in ipairs(self:children()) do child:clearState() end
  return self
end

-- Converts every parameter and gradient (named_parameters') in place: the tensors stay the
-- same Lua objects, so an optimizer built before keeps stepping them (as PyTorch's
-- module.to()). What the latest forward kept and the buffers (Torch7's output and gradInput
-- too) are dropped, since they live on the old device or dtype.
function Module:to(a, b)
  local dtype = tensor.parse_to(a, b, self.__name .. ':to', 3)
  if dtype then inputs.module_dtype(dtype, self.__name .. ':to', 'the dtype') end
  for _, p, g in self:named_parameters() do
    tensor.to_in_place(p, a, b)
    tensor.to_in_place(g, a, b)
  end
  return self:clearState()
end

-- m:float() ... m:cpu(): m:to(...) of their one meaning, so an argument is an error.
for name, to in pairs({ float = 'float32', double = 'float64', cuda = 'cuda', cpu = 'cpu' }) do
  Module[name] = function(self, ...)
    inputs.no_more(self.__name .. ':' .. name, 0, ...)
    return self:to(to)
  end
end

-- For constructors: n must be a positive integer (arg names it in the error, which is blamed
-- on the constructor's caller; `depth` counts the calls between __init and here, default 0).
function Module:check_size(n, arg, depth)
  if type(n) ~= 'number' or n < 1 or n ~= math.floor(n) or n >= 2 ^ 53 then
    error(string.format("%s: argument '%s' expected a positive integer, got %s", self.__name,
                        arg, tostring(n)), 4 + (depth or 0))
  end
end

-- For constructors: opts ({dtype=, device=} or nil), checked in the module's name, as the
-- options of its tensors ({dtype = name, device = name}). depth as check_size's.
function Module:tensor_options(opts, depth)
  local dtype, device = dt.parse(opts, self.__name, 5 + (depth or 0))
  inputs.module_dtype(dtype, self.__name, "option 'dtype'")
  return { dtype = dt.dtype_names[dtype], device = dt.device_names[device] }
end

-- For backward: d_output must be a tensor of shape `shape` (the forward output's), on the
-- dtype and device of `like` (a tensor of the forward; by default the module's first
-- parameter); errors are blamed on the user's line.
function Module:expect_d_output(d_y, shape, fn, like)
  return inputs.shaped(d_y, fn, 'd_output', like or self:parameters()[1], shape, "the output's")
end

-- Raised by backward when no forward kept anything.
function Module:expect_saved(fn)
  if not self.saved then
    blame(string.format('%s:%s: no forward to go back through (call forward first)',
                        self.__name, fn or 'backward'))
  end
  return self.saved
end

-- Training or evaluation mode, as PyTorch's: a module whose forward differs between them
-- (Dropout, the dropout of nn.LSTM) reads self.training. train() and eval() set it on the
-- module and its children; train(false) is eval().
Module.training = true

function Module:train(mode, ...)
  local fn = self.__name .. ':train'
  inputs.no_more(fn, 1, ...)
  if mode ~= nil and type(mode) ~= 'boolean' then -- train(0) was training: 0 is true in Lua
    blame(string.format("%s: argument 'mode' expected a boolean, got %s", fn, argcheck.type_name(mode)))
  end
  self.training = mode ~= false
  for _, child in ipairs(self:children()) do child:train(self.training) end
  return self
end

function Module:eval(...)
  inputs.no_more(self.__name .. ':eval', 0, ...)
  return self:train(false)
end

-- What tostring shows after the module's name, PyTorch's extra_repr: the sizes that made it,
-- '(4 -> 8)'. This default shows the shapes of the module's own parameters, or nothing.
function Module:extra_repr()
  local shapes = {}
  for _, k in ipairs({ 'weight', 'bias' }) do
    if self[k] then shapes[#shapes + 1] = k .. ' ' .. table.concat(self[k]:shape(), 'x') end
  end
  return #shapes > 0 and '(' .. table.concat(shapes, ', ') .. ')' or ''
end

-- 'fused.nn.Name(extra)', then each child on its own line, indented under its label, as
-- Torch7 and PyTorch print a model:
--   fused.nn.Recurrent {
--     (cell): fused.nn.LLTMCell(input_size=32, hidden_size=128)
--   }
function Module:describe(children, labels)
  local head = 'fused.nn.' .. self.__name .. self:extra_repr()
  if #children == 0 then return head end
  local lines = { head .. ' {' }
  for i, child in ipairs(children) do
    lines[#lines + 1] = '  (' .. labels[i] .. '): ' .. tostring(child):gsub('\n', '\n  ')
  end
  lines[#lines + 1] = '}'
  return table.concat(lines, '\n')
end

function Module:__tostring() return self:describe(self:children()) end

return Module
