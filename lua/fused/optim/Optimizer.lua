-- The base of the optimizers: a list of parameters and their gradients, per-parameter state
-- buffers, a step count, and the state_dict that a checkpoint saves so that training resumes
-- exactly.
--
--   local Adam = Optimizer:extend('Adam', defaults, check)
--   function Adam:buffer_names() return { 'exp_avg', 'exp_avg_sq' } end
--   function Adam:update(i, param, grad) ... end  -- one parameter, one fused C call
--   function SGD:check_together() ... end  -- optional: a message when options clash
--
-- The hyperparameters are fields (opt.lr, ...) and may be changed between steps.
local options = require 'fused.options'
local tensor = require 'fused.tensor'
local argcheck = require 'fused.check'
local blame = require 'fused.blame'

local Optimizer = {}
Optimizer.__index = Optimizer

local function shape_text(t) return '[' .. table.concat(t:shape(), ', ') .. ']' end

local function same_layout(a, b)
  return a.dtype == b.dtype and a.device == b.device and shape_text(a) == shape_text(b)
end

-- The methods a user calls, each refusing an argument it does not take (opt:step(closure),
-- PyTorch's form, must not return without calling the closure), named as the class's.
local PUBLIC = { 'step', 'zero_grad', 'state_dict', 'load_state_dict' }

-- A subclass. defaults: the hyperparameters and their defaults; check(name, value) raises
-- (with a message saying what was expected) for a bad value. Its instances hold, per name
-- that buffer_names() lists, one buffer per parameter, zeros at first.
function Optimizer:extend(name, defaults, check)
  local class = { __name = name, defaults = defaults, check = check }
  local construct = argcheck.no_extra(name, function(params, grads, opts)
    return class.new(class, params, grads, opts)
  end)
  setmetatable(class, { __index = self, __call = function(_, ...) return construct(...) end })
  class.__index = class
  for _, m in ipairs(PUBLIC) do class[m] = argcheck.no_extra(name .. ':' .. m, Optimizer[m]) end
  return class
end

-- Raises "<fn>: unknown option '<k>' (expected one of: ...)" or "<fn>: option '<k>' expected
-- ..." unless every option is known and check accepts its value; returns opts ({} for nil).
-- level is error's, seen from check_options.
local function hyper_names(cls)
  local names = {}
  for k in pairs(cls.defaults) do names[#names + 1] = k end
  table.sort(names)
  return names
end

local function check_options(cls, fn, opts, level)
  opts = options.check(opts, fn, hyper_names(cls))
  for k, v in pairs(opts) do
    local ok, err = pcall(cls.check, k, v)
    if not ok then error(string.format("%s: option '%s' %s", fn, k, err), level) end
  end
  return opts
end

-- How a list argument came, for errors: its length, or what it is when not a list.
local function describe_list(list)
  if type(list) ~= 'table' then return argcheck.type_name(list) end
  local n = argcheck.sequence_length(list)
  return n and n .. ' entries' or argcheck.show_list(list)
end

-- Reached by a tail call from Adam(...), so errors at level 2 are the caller's.
function Optimizer.new(cls, params, grads, opts)
  local fn = cls.__name
  local n = type(params) == 'table' and argcheck.sequence_length(params)
  if not n or n == 0 or type(grads) ~= 'table' or argcheck.sequence_length(grads) ~= n then
    -- PyTorch's Optimizer(model.parameters(), {lr = ...}) passes the options as 'grads'.
    local pytorch = type(grads) == 'table' and not argcheck.sequence_length(grads) and opts == nil
      and string.format(' (PyTorch\'s %s(params, opts)? fused takes the gradients too: '
                        .. 'local params, grads = model:parameters(); %s(params, grads, opts))', fn, fn)
      or ''
    error(string.format("%s: arguments 'params' and 'grads' expected two lists of tensors of one "
                        .. "length (as module:parameters() returns), got %s and %s%s", fn,
                        describe_list(params), describe_list(grads), pytorch), 2)
  end
  local position = {} -- the same tensor twice would be stepped twice per step
  for i = 1, #params do
    argcheck.expect(params[i], fn, 'params[' .. i .. ']')
    if position[params[i]] then
      error(string.format("%s: params[%d] is params[%d] again (each parameter expected once; "
                          .. "module:parameters() lists a tied one once)", fn, i, position[params[i]]), 2)
    end
    position[params[i]] = i
    argcheck.expect(grads[i], fn, 'grads[' .. i .. ']')
    if not same_layout(params[i], grads[i]) then
      error(string.format("%s: grads[%d] expected the shape, dtype and device of params[%d]", fn,
                          i, i), 2)
    end
    if not params[i]:is_contiguous() or not grads[i]:is_contiguous() then
      error(string.format("%s: params[%d] and grads[%d] expected contiguous tensors", fn, i, i), 2)
    end
  end
  opts = check_options(cls, fn, opts, 3)
  local self = setmetatable({ params = params, grads = grads, step_count = 0, buffers = {} }, cls)
  for k, default in pairs(cls.defaults) do
    if opts[k] == nil then self[k] = default else self[k] = opts[k] end
  end
  local clash = self:check_together()
  if clash then error(fn .. ': ' .. clash, 2) end
  for _, b in ipairs(self:buffer_names()) do
    self.buffers[b] = {}
    for i, p in ipairs(params) do self.buffers[b][i] = tensor.empty_like(p):zero() end
  end
  return self
end

-- One update of every parameter from its gradient. A module moved by :to() after this
-- optimizer was built converted its parameters in place: the buffers follow them here. A
-- gradient list changed since (grads[i] replaced) is checked before any parameter moves.
function Optimizer:step()
  for i = 1, #self.params do
    local p, g = self.params[i], self.grads[i]
    if not argcheck.is_tensor(g) or not same_layout(p, g) then
      blame(string.format("%s:step: grads[%d] expected the shape, dtype and device of params[%d] "
                          .. "(%s %s %s), got %s", self.__name, i, i, shape_text(p), p.dtype, p.device,
                          argcheck.is_tensor(g) and table.concat({ shape_text(g), g.dtype, g.device }, ' ')
                          or argcheck.type_name(g)))
    end
  end
  self.step_count = self.step_count + 1
  for i = 1, #self.params do
    local p = self.params[i]
    for _, list in pairs(self.buffers) do
      local b = list[i]
      if b and (b.scalar_type ~= p.scalar_type or b.device_type ~= p.device_type) then
        tensor.to_in_place(b, p.dtype, p.device)
      end
    end
    self:update(i, p, self.grads[i])
  end
end

-- Zeroes every gradient the optimizer steps from, as torch.optim's zero_grad (which a
-- module's zero_grad does too).
function Optimizer:zero_grad()
  for _, g in ipairs(self.grads) do g:zero() end
end

-- { step = n, hyper = {lr = ...}, params = #params, tensors = {['1.exp_avg'] = t, ...} }:
-- everything a later load_state_dict needs to continue exactly. Tensors are named by the
-- parameter's position (in module:named_parameters()' order, as PyTorch's state refers to its
-- parameters) and the buffer's name; they are the live buffers, not copies.
function Optimizer:state_dict()
  local hyper, tensors = {}, {}
  for k in pairs(self.defaults) do hyper[k] = self[k] end
  for _, b in ipairs(self:buffer_names()) do
    for i, t in ipairs(self.buffers[b]) do tensors[i .. '.' .. b] = t end
  end
  return { step = self.step_count, hyper = hyper, params = #self.params, tensors = tensors }
end

-- Checks the whole state before taking any of it: the hyperparameters (they decide which
-- buffers there are: momentum, say), the number of parameters, and one tensor of each
-- parameter's shape per buffer, no more.
function Optimizer:load_state_dict(state)
  local fn = self.__name .. ':load_state_dict'
  if type(state) ~= 'table' or type(state.step) ~= 'number' or type(state.params) ~= 'number'
     or type(state.tensors) ~= 'table' then
    error(fn .. ": argument 'state' expected a table from state_dict()", 2)
  end
  for _, field in ipairs({ 'step', 'params' }) do
    local v = state[field]
    if v ~= math.floor(v) or v < 0 or v == math.huge then
      error(string.format("%s: argument 'state' field '%s' expected an integer >= 0, got %s", fn,
                          field, tostring(v)), 2)
    end
  end
  if state.params ~= #self.params then
    error(string.format("%s: argument 'state' expected the state of %d parameters (this optimizer's), "
                        .. "got %d", fn, #self.params, state.params), 2)
  end
  -- Every hyperparameter, as state_dict() wrote them: a missing one must not leave this
  -- optimizer's value (or the default) in silence.
  if type(state.hyper) ~= 'table' then
    error(fn .. ": argument 'state' field 'hyper' expected a table from state_dict(), got "
          .. argcheck.type_name(state.hyper), 2)
  end
  local hyper = check_options(self, fn, state.hyper, 3)
  for _, k in ipairs(hyper_names(self)) do
    if hyper[k] == nil then
      error(string.format("%s: argument 'state' field 'hyper' lacks '%s' (expected every "
                          .. "hyperparameter of %s: %s)", fn, k, self.__name,
                          table.concat(hyper_names(self), ', ')), 2)
    end
  end
  -- Asked of the state's hyperparameters (all there, the fields these methods read).
  local clash = self.check_together(hyper) -- SGD's nesterov with dampening, say
  if clash then error(fn .. ': ' .. clash, 2) end
  local names = self.buffer_names(hyper)
  local expected = {}
  for _, b in ipairs(names) do
    for i, p in ipairs(self.params) do
      local key, src = i .. '.' .. b, state.tensors[i .. '.' .. b]
      expected[key] = true
      if not argcheck.is_tensor(src) or shape_text(src) ~= shape_text(p) then
        error(string.format("%s: buffer '%s' expected a tensor of shape %s, got %s", fn, key,
                            shape_text(p), argcheck.is_tensor(src) and shape_text(src) or type(src)), 2)
      end
    end
  end
  for key in pairs(state.tensors) do
    if not expected[key] then
      error(string.format("%s: argument 'state' has an unexpected buffer '%s' (expected one of %s's "
                          .. "buffers for parameters 1 to %d)", fn, tostring(key), self.__name,
                          #self.params), 2)
    end
  end
  for k, v in pairs(hyper) do self[k] = v end
  for _, b in ipairs(names) do
    self.buffers[b] = self.buffers[b] or {}
    for i, p in ipairs(self.params) do
      self.buffers[b][i] = self.buffers[b][i] or tensor.empty_like(p)
      self.buffers[b][i]:copy_(state.tensors[i .. '.' .. b]:to(p.dtype, p.device))
    end
  end
  self.step_count = state.step
end

function Optimizer:check_together() end

-- A value as an error shows it: a number as itself, else what it is ('0.1' is no number).
local function shown(v) return type(v) == 'number' and tostring(v) or argcheck.shown(v) end

-- Checks for the subclasses' check(name, value): each raises "expected ..., got ..." (the
-- constructor adds the optimizer's name and the option's).
function Optimizer.expect_non_negative(v)
  if type(v) ~= 'number' or not (v >= 0 and v < math.huge) then
    error('expected a finite number >= 0, got ' .. shown(v), 0)
  end
end

function Optimizer.expect_boolean(v)
  if type(v) ~= 'boolean' then error('expected true or false, got ' .. shown(v), 0) end
end

-- In [low, high], or [low, high) when open_high.
function Optimizer.expect_in_range(v, low, high, open_high)
  if type(v) ~= 'number' or not (v >= low and (v < high or not open_high and v == high)) then
    error(string.format('expected a number in [%g, %g%s, got %s', low, high,
                        open_high and ')' or ']', shown(v)), 0)
  end
end

return Optimizer
