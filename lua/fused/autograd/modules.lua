-- Modules and the tape (docs/nn.md, "A layer with a forward only"). nn/calls.lua asks here:
--   * a module whose class defines forward (or Torch7's updateOutput) and no backward (nor
--     updateGradInput) is derived: a call in training mode records its forward on a tape of
--     its own, kept with the call, and backward replays it; a call inside another recorded
--     forward puts its ops on that tape (it is part of that forward);
--   * a module with its own backward, called inside a recorded forward, runs unrecorded and
--     is one node on the tape, whose replay is its own backward of that very call (a loss: its
--     backward(input, target, d_loss); its number result becomes a 0-dim tensor there).
local argcheck = require 'fused.check'
local tape = require 'fused.autograd.tape'
local factory = require 'fused.factory'
local tensor = require 'fused.tensor'
local inputs = require 'fused.nn.inputs'
local blame = require 'fused.blame'

local is_tensor = argcheck.is_tensor
local M = {}

local zeros_like = require('fused.autograd.rules.common').zeros_like

local function pack(...) return { n = select('#', ...), ... } end

-- Whether self's class (base: Module) defines a forward (or updateOutput) and no backward (nor
-- updateGradInput).
function M.derives(self, base)
  if self.backward ~= base.backward then return false end
  if self.updateOutput then return self.updateGradInput == base.updateGradInput end
  return self.forward ~= base.forward
end

-- forward(self, ...) of a derived module's call, recorded on a new tape kept with the call,
-- whose leaves are its tensor arguments (and the parameters it reads). The call's slot keeps
-- the buffers of the replay's gradients for the next call to take it (as a module's own
-- backward keeps its gradInput): a gradient that backward returns holds until then.
function M.recorded(call, forward, self, ...)
  call.pool = call.pool or {}
  local t = tape.new(true, call.pool)
  t.inputs = pack(...)
  for i = 1, t.inputs.n do
    local a = t.inputs[i]
    if is_tensor(a) then t:leaf(a) end
  end
  call.tape = t
  t.results = pack(t:run(forward, self, ...))
  return unpack(t.results, 1, t.results.n)
end

-- The gradient given for the result r of a derived call: a tensor of r's shape, dtype and
-- device; for a one-element r also a number, or nothing at all (1, as PyTorch's loss.backward()).
local function given(self, r, g, none)
  if (none or type(g) == 'number') and r:numel() == 1 then return tensor.empty_like(r):fill_(g or 1) end
  if g == nil then return nil end
  return inputs.shaped(g, self.__name .. ':backward', 'gradOutput', r, r:shape(), "the output's")
end

-- The backward of a derived module's call: backward(<a gradient per result of forward>)
-- replays its tape, adds into the parameters' gradients, and returns a gradient per tensor
-- argument of forward (zeros for one its result does not depend on; nil for others, and for
-- one given to a built-in module that gives it no gradient: GraphConv's A).
function M.replay(call)
  return function(self, ...)
    local t, grads = call.tape, {}
    local results, none = t.results, select('#', ...) == 0
    if none and not (results.n == 1 and is_tensor(results[1]) and results[1]:numel() == 1) then
      blame(string.format('%s:backward: expected a gradient per result of forward (%d), got none '
                          .. '(only a one-element result goes back from 1 by default)', self.__name, results.n))
    end
    for i = 1, results.n do
      local r, g = results[i], select(i, ...)
      if is_tensor(r) then
        grads[r] = given(self, r, g, none)
      elseif type(r) == 'table' and type(g) == 'table' then
        for j, o in ipairs(r) do if is_tensor(o) and g[j] ~= nil then grads[o] = g[j] end end
      end
    end
    call.tape = nil
    t:backward(grads)
    local d = {}
    for i = 1, t.inputs.n do
      local a = t.inputs[i]
      if is_tensor(a) and not (t.lost and t.lost[a]) then d[i] = grads[a] or zeros_like(a) end
    end
    return unpack(d, 1, t.inputs.n)
  end
end

-- backward of a derived module's call that recorded nothing.
function M.unrecorded(self)
  blame(string.format('%s:backward: its forward ran in evaluation mode, which '
    .. 'records nothing to derive the backward from (call train() before forward)', self.__name))
end

-- The gradient at r (a tensor or a list of them) from the tape's: zeros where none came.
local function gradient_at(grads, r)
  if is_tensor(r) then return grads[r] or zeros_like(r) end
  if type(r) ~= 'table' then return nil end
  local list = {}
  for j, t in ipairs(r) do list[j] = is_tensor(t) and (grads[t] or zeros_like(t)) or nil end
  return list
end

-- Whether a module's results are its tensor arguments themselves (Dropout(0), any Dropout
-- in evaluation mode): the identity, which needs no node (the gradient at the result is the
-- gradient at the argument: a node would add it in twice). A tensor argument returned beside
-- other results is refused, its two gradients being one.
local function returns_input(self, results, ...)
  local args, same, other = pack(...), 0, 0
  for i = 1, results.n do
    local r = results[i]
    if is_tensor(r) then
      local found = false
      for j = 1, args.n do found = found or rawequal(r, args[j]) end
      if found then same = same + 1 else other = other + 1 end
    end
  end
  if same > 0 and other > 0 then
    blame(string.format('%s:forward: returned a tensor argument as it is beside other results inside '
                        .. 'a recorded forward, where its gradient and its argument\'s would be one '
                        .. '(return it cloned)', self.__name))
  end
  return same > 0
end

-- The gradients that a module's backward returned (d, packed), placed at the forward arguments
-- they are for: in order, but at those of its class's no_gradient ({[position] = name}:
-- GraphConv's {'A'}, whose backward returns X's gradient alone).
local function placed(self, d, n)
  local skip = self.no_gradient
  if not skip then return d end
  local ga, k = { n = n }, 0
  for i = 1, n do
    if not skip[i] then k = k + 1; ga[i] = d[k] end
  end
  return ga
end

-- Such an argument that the tape holds loses its gradient: one a recorded op made, or a leaf of
-- fused.grad, is an error (the gradient would not reach what it came from, or be zeros where
-- it is not); a tensor given to a derived module's call gets none from its backward (nil).
local function check_no_gradient(outer, self, args)
  for i, name in pairs(self.no_gradient or {}) do
    local a = args[i]
    if is_tensor(a) and outer.tracked[a] then
      local given = false
      for j = 1, outer.inputs and outer.inputs.n or 0 do given = given or rawequal(outer.inputs[j], a) end
      if not given or outer.made[a] then
        blame(string.format("%s:forward: argument '%s' is a tensor of a recorded forward, but %s:backward "
                            .. 'gives it no gradient', self.__name, name, self.__name))
      end
      outer.lost = outer.lost or {}
      outer.lost[a] = true
    end
  end
end

-- A module with its own backward inside the recording `outer`: run(...) unrecorded, then one
-- node whose replay calls back(call, <gradients at each result>) (nn/calls.lua's go_back) and
-- takes its results as the gradients of forward's arguments; forget(call) when no gradient
-- reached it.
function M.node(outer, self, call, run, back, forget, ...)
  local args = pack(...)
  check_no_gradient(outer, self, args)
  local results = pack(tape.paused(run, ...))
  if returns_input(self, results, ...) then forget(call) return unpack(results, 1, results.n) end
  outer:node(self.__name, args, results, function(grads, reached)
    if not reached then forget(call) return {} end
    local g = {}
    for i = 1, results.n do g[i] = gradient_at(grads, results[i]) end
    return placed(self, pack(back(call, g)), args.n)
  end)
  return unpack(results, 1, results.n)
end

-- A loss with its own backward inside the recording `outer`: its result as a 0-dim tensor (a
-- number otherwise), and a node whose replay is self:backward(input, target, d_loss) (and
-- the class's target_gradient(d_input) for a target, MSELoss's).
function M.loss(outer, self, forward, ...)
  local input, target = ...
  local results = pack(tape.paused(forward, self, ...))
  local loss = results[1]
  if type(loss) == 'number' and is_tensor(input) then
    loss = factory.full({}, loss, { dtype = input.dtype, device = input.device })
  elseif is_tensor(loss) then
    loss = loss:clone() -- reduction 'none': the module's buffer, which its next call overwrites
  end
  results[1] = loss
  outer:node(self.__name, pack(...), results, function(grads, reached)
    local g = grads[loss]
    if not reached or g == nil then return {} end
    local d = g.ndim == 0 and g:item() or g
    -- A copy: a criterion's buffers are the module's, which its next call's backward overwrites
    -- (one loss called twice in a forward), while the tape may keep this gradient as it came.
    local d_input = tape.paused(self.backward, self, input, target, d):clone()
    return { d_input, self.target_gradient and is_tensor(target) and tape.paused(self.target_gradient, d_input) or nil }
  end)
  return unpack(results, 1, results.n)
end

return M
