-- The calls of a module that wait for their backward (docs/nn.md, "Calls and backward"). Every
-- module's forward and backward are wrapped here (Module:extend does it), so that a module
-- called several times before its backward (one Dropout used twice, a cell run step by step)
-- keeps each call's saved state and buffers apart:
--   * a forward in training mode takes a free slot ({buffers, saved, output, gradInput}, the
--     module's fields while the call runs) and leaves the call pending; in evaluation mode it
--     runs on fresh buffers (its results are never overwritten) and only the latest such call
--     waits (PyTorch's eval() still goes back: input gradients of a model in evaluation);
--   * backward(<gradients at forward's results>) goes back through the latest pending call;
--     Torch7's backward(input, gradOutput[, scale]) through the latest one whose first argument
--     was `input` (rawequal); a module with several results takes gradOutput as a list
--     {d_1, ..., d_k}. The call is then done and its slot free for the next forward;
--   * at most module.max_pending calls wait: the forward past that forgets the oldest (its slot
--     is dropped, not reused, so its results stay as they are), and backward says so.
-- Losses (criterion = true) keep nothing and are not wrapped. A module whose class has a
-- forward and no backward gets its backward derived: its call keeps a tape of its forward
-- (autograd/modules.lua), which backward replays; inside a recorded forward a module with its
-- own backward (a loss too) is one node on the tape.
local blame = require 'fused.blame'
local argcheck = require 'fused.check'
local tape = require 'fused.autograd.tape'
local derived = require 'fused.autograd.modules'

local M = {}

-- The fields that belong to one call, swapped in while it runs.
local FIELDS = { 'buffers', 'saved', 'output', 'gradInput' }

-- Fields that are per call or per module instance, never shared nor walked for children:
-- these, the pending list and the free slots.
M.PRIVATE = { buffers = true, saved = true, output = true, gradInput = true, pending = true,
              free = true, forgotten = true }

local inner_of = setmetatable({}, { __mode = 'k' }) -- wrapper -> the class's own function

local function enter(self, call)
  for _, k in ipairs(FIELDS) do self[k] = call[k] end
end

local function leave(self, call)
  for _, k in ipairs(FIELDS) do call[k] = self[k] end
end

-- A slot for a forward in training mode: a freed one, or new (the first adopts what the
-- constructor left in the module's fields, Torch7's preset output).
local function take(self)
  local free = self.free
  if free and #free > 0 then return table.remove(free) end
  if not self.pending then return { buffers = self.buffers, output = self.output, gradInput = self.gradInput } end
  return { buffers = {} }
end

local function pack(...) return { n = select('#', ...), ... } end

-- An error raised inside the wrapped function: one without a position was blamed on its
-- caller (here, pcall), and is blamed on the user's line instead.
local function rethrow(err)
  if type(err) == 'string' and not err:match('^[^:\n]+:%d+: ') then blame(err) end
  error(err, 0)
end

local function is_list(v) return type(v) == 'table' end -- a tensor is cdata

-- After a forward: the call waits, and forward's results are returned as they came. (The class's
-- forward is called unprotected, so that an error keeps its traceback: a call that raised is
-- simply never kept.)
local function forwarded(self, call, input, ...)
  leave(self, call)
  local training = not call.evaluation
  call.input, call.results = input, select('#', ...)
  local pending = self.pending
  if #pending == 0 then self.forgotten = nil end
  if not training then -- only the latest call in evaluation mode waits
    for i = #pending, 1, -1 do
      if pending[i].evaluation then table.remove(pending, i) end
    end
  end
  pending[#pending + 1] = call
  if #pending > self.max_pending then
    table.remove(pending, 1)
    self.forgotten = (self.forgotten or 0) + 1
  end
  return ...
end

-- Set by Module.lua: the base class, whose backward a module without its own inherits.
M.base = nil

-- m.forward(x), Python's habit, passes x as the module: an error saying so, not a failure
-- inside the library at whatever x lacks.
local function expect_module(self, fn)
  if type(self) ~= 'table' or type(self.forward) ~= 'function' then
    blame(string.format("%s: expected a module to call it on, got %s (call it as m:%s(...), with a "
                        .. "colon: m.%s(x) passes x as the module)", fn, argcheck.shown(self), fn, fn))
  end
end

function M.wrap_forward(inner)
  local function forward(self, ...)
    expect_module(self, 'forward')
    local outer = tape.recording() -- a recorded forward (autograd/modules.lua) calls this one
    if self.criterion and outer and self.forward == forward then return derived.loss(outer, self, inner, ...) end
    -- A subclass's forward calling this class's (Linear.forward(self, x)) is part of its call.
    if self.forward ~= forward or self.criterion then return inner(self, ...) end
    self:sync_parameters()
    local derives = M.derives(self)
    if outer and derives then return inner(self, ...) end -- its ops go on the outer tape
    local call = self.training and take(self) or { buffers = {}, evaluation = true }
    enter(self, call)
    self.pending = self.pending or {}
    if outer then
      return derived.node(outer, self, call, function(...) return forwarded(self, call, (...), inner(self, ...)) end,
                          M.go_back_call(self), M.forget_call(self), ...)
    end
    if derives and self.training then return forwarded(self, call, (...), derived.recorded(call, inner, self, ...)) end
    return forwarded(self, call, (...), inner(self, ...))
  end
  inner_of[forward] = inner
  return forward
end

local function usage(self, fn, results)
  local name = self.__name .. ':' .. fn
  local grad = results > 1 and '{<those gradients>}' or 'gradOutput'
  local torch7 = string.format('%s(input, %s%s)', name, grad, fn == 'updateGradInput' and '' or '[, scale]')
  if fn ~= 'backward' then return torch7 end
  if results > 1 then
    return string.format('%s(<a gradient per result of forward, %d>) or, as Torch7, %s', name, results, torch7)
  end
  return string.format('%s(gradOutput) or, as Torch7, %s', name, torch7)
end

local count = require('fused.functional.args').count

-- The pending call that backward's arguments name, and in Torch7's form the gradients to go
-- back with (packed) and scale (nil in fused's form: the arguments are the gradients). fn names
-- the method the user called.
local function find(self, fn, ...)
  local pending = self.pending
  if not pending or #pending == 0 then
    local why = self.free and #self.free > 0 and '; backward runs once per forward' or ''
    if self.forgotten then
      why = string.format('; %d earlier calls were forgotten: a module keeps at most max_pending '
                          .. '= %d calls waiting for backward', self.forgotten, self.max_pending)
    end
    blame(string.format('%s:%s: no forward to go back through (call forward first%s)', self.__name,
                        fn, why))
  end
  local results, n = pending[#pending].results, count(...)
  local input, grad, scale = ...
  local torch7 = (results <= 1 and n >= 2) or (results > 1 and is_list(grad))
  if results <= 1 and n == 1 and select('#', ...) >= 2 then
    -- backward(g, nil) is fused's form with a trailing nil (code written for cells with and
    -- without c), unless g is a waiting call's input: Torch7's form missing its gradient.
    for i = 1, #pending do torch7 = torch7 or rawequal(pending[i].input, input) end
  end
  if not torch7 then
    if fn ~= 'backward' then
      blame(string.format('%s:%s: expected %s, got %d arguments', self.__name, fn,
                          usage(self, fn, results), n))
    end
    if results > 1 and n >= 2 and rawequal(input, pending[#pending].input) then
      blame(string.format("%s:%s: the first gradient is the call's input (for Torch7's form pass "
                          .. 'the gradients as a list: %s)', self.__name, fn, usage(self, fn, results)))
    end
    return pending[#pending], nil, nil -- the arguments are the gradients, as they came
  end
  if n > 3 or (scale ~= nil and (type(scale) ~= 'number' or fn == 'updateGradInput')) then
    blame(string.format('%s:%s: expected %s, got %d arguments (%s)', self.__name, fn,
                        usage(self, fn, results), n, n > 3 and 'more than 3' or 'the third is ' .. type(scale)))
  end
  if results <= 1 and grad == nil then
    blame(string.format("%s:%s: argument 'gradOutput' expected a tensor, got nil (call %s)",
                        self.__name, fn, usage(self, fn, results)))
  end
  if results > 1 and not is_list(grad) then
    blame(string.format("%s:%s: argument 'gradOutput' expected a list of the gradients at the %d "
                        .. 'results (call %s)', self.__name, fn, results, usage(self, fn, results)))
  end
  for i = #pending, 1, -1 do
    if rawequal(pending[i].input, input) then
      local grads = results > 1 and pack(unpack(grad, 1, results)) or pack(grad)
      return pending[i], grads, scale
    end
  end
  blame(string.format("%s:%s: argument 'input' is not the input of a forward waiting for its "
                      .. 'backward (%d waiting%s; Torch7\'s form names the call by its input, the '
                      .. 'same object forward got; call %s)', self.__name, fn, #pending,
                      self.forgotten and string.format(', %d older forgotten past max_pending = %d',
                      self.forgotten, self.max_pending) or '', usage(self, fn, results)))
end

local function done(self, call)
  local pending = self.pending
  for i = #pending, 1, -1 do
    if pending[i] == call then table.remove(pending, i) end
  end
  if call.evaluation then return end -- its results were fresh tensors: not a slot to reuse
  call.input, call.contribution, call.grad_input = nil, nil, nil
  self.free = self.free or {}
  self.free[#self.free + 1] = call
end

-- The class's backward run on `call` with the gradients g; the parameter gradients get
-- scale times the call's contribution (Torch7's scale; 1: added as the module adds them), or
-- none of it (keep): the contribution is returned, for accGradParameters. Only then is it run
-- protected, to put the gradients back on an error.
local function run(self, call, g, scale, keep)
  local inner = call.tape and derived.replay(call) or inner_of[self.backward]
  enter(self, call)
  local args = g
  if self.updateOutput and not call.tape then -- Torch7's protocol takes the scale itself
    args, scale = pack(g[1], scale or 1), nil
  end
  if not keep and (scale == nil or scale == 1) then
    local r = pack(true, inner(self, unpack(args, 1, args.n))) -- as pcall's
    leave(self, call)
    return r
  end
  local _, grads = self:parameters()
  local kept = {}
  for i, t in ipairs(grads) do kept[i] = t:clone(); t:zero_() end
  local r = pack(pcall(inner, self, unpack(args, 1, args.n)))
  leave(self, call)
  local contribution
  if keep and r[1] then
    contribution = {}
    for i, t in ipairs(grads) do contribution[i] = t:clone() end
  end
  for i, t in ipairs(grads) do
    if r[1] and not keep then t:mul_(scale) else t:zero_() end
    t:add_(kept[i])
  end
  if not r[1] then rethrow(r[2]) end
  return r, contribution
end

-- After the class's backward of a call: the call is done; backward's results as they came.
local function went_back(self, call, ...)
  leave(self, call)
  done(self, call)
  return ...
end

-- check(self), when given, raises before anything else (a backward that cannot run at all).
function M.wrap_backward(inner, check)
  local function backward(self, ...)
    expect_module(self, 'backward')
    if self.backward ~= backward or self.criterion then return inner(self, ...) end
    if check and not M.derives(self) then check(self) end
    self:sync_parameters()
    local call, g, scale = find(self, 'backward', ...)
    if not call.tape and M.derives(self) then derived.unrecorded(self) end
    if g == nil and not self.updateOutput and not call.tape then -- fused's form, the common case
      enter(self, call)
      return went_back(self, call, inner(self, ...))
    end
    local r = run(self, call, g or pack(...), scale)
    done(self, call)
    return unpack(r, 2, r.n)
  end
  inner_of[backward] = inner
  return backward
end

-- Torch7's updateGradInput(input, gradOutput) on a module of fused's: the input's gradient,
-- the parameters' left as they are; the call waits for its accGradParameters.
function M.update_grad_input(self, ...)
  self:sync_parameters()
  local call, g = find(self, 'updateGradInput', ...)
  if not call.contribution then
    local r, contribution = run(self, call, g, nil, true)
    call.contribution, call.grad_input = contribution, r
  end
  return unpack(call.grad_input, 2, call.grad_input.n)
end

-- Torch7's accGradParameters(input, gradOutput[, scale]): adds scale times the call's
-- contribution to the parameters' gradients (going back through it unless updateGradInput
-- did), and the call is done.
function M.acc_grad_parameters(self, ...)
  self:sync_parameters()
  local call, g, scale = find(self, 'accGradParameters', ...)
  if call.contribution then
    local _, grads = self:parameters()
    for i, t in ipairs(grads) do t:add_(call.contribution[i]:mul_(scale or 1)) end
  else
    run(self, call, g, scale or 1)
  end
  done(self, call)
end

-- For a module's node on a tape (autograd/modules.lua): back(call, g), the gradients at each
-- result of forward (g, packed), going back through that call; forget(call), the call dropped
-- when no gradient reached it.
function M.go_back_call(self)
  return function(call, g)
    local r = run(self, call, g)
    done(self, call)
    return unpack(r, 2, r.n)
  end
end

function M.forget_call(self)
  return function(call) done(self, call) end
end

-- Whether self's backward is derived from its recorded forward (autograd/modules.lua).
function M.derives(self) return derived.derives(self, M.base) end

-- Whether f is a wrapped forward or backward (a module of Module's, not a look-alike table).
function M.wraps(f) return inner_of[f] ~= nil end

-- Drops every pending call and free slot (clearState, to()).
function M.clear(self)
  self.pending, self.free, self.forgotten = nil, nil, nil
  self.buffers, self.saved, self.output, self.gradInput = {}, nil, nil, nil
end

return M
