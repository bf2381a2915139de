-- The tape: while a recorded forward or fused.grad runs, every op of the op layer (and every
-- view) that reads a recorded tensor is written down as a node {name, args, outs}; backward
-- replays the nodes in reverse through their rules (autograd/rules/). Off (no tape recording),
-- a wrapped op costs one table read. The ops themselves know nothing of it: ops/init.lua
-- wraps them here (torch-autograd's DirectTape).
--
-- Recorded tensors: a tape's leaves (a module call's tensor inputs, fused.grad's params; in a
-- module's forward also every module parameter it reads, nn/gradients.lua's) and every result
-- of a recorded op. A tensor is keyed by its Lua object: a view is a new object, a node of its own.
-- In place, nothing is recorded: an in-place op (or {out = t}) that writes into, or reads from,
-- a tensor the tape holds is refused (PyTorch's version counter refuses the same at backward).
local tensor = require 'fused.tensor'
local argcheck = require 'fused.check'
local blame = require 'fused.blame'
local gradients = require 'fused.nn.gradients'
local rules = require 'fused.autograd.rules'
local common = require 'fused.autograd.rules.common'

local is_tensor, ops = argcheck.is_tensor, common.ops
local M = {}

-- The tape being recorded (state.recording, or nil), shared by every loaded copy of this
-- module as the tensor metatype is (fused/tensor.lua): a tensor's methods are the first copy's.
local registry = debug.getregistry()
local state = registry['fused.autograd.tape']
if not state then
  state = {}
  registry['fused.autograd.tape'] = state
end

local Tape = {}
Tape.__index = Tape

-- A new tape; module_params: a module parameter read by an op becomes a leaf.
-- pool (optional): the buffers of the rules' results, kept by a module's call slot across steps.
function M.new(module_params, pool)
  return setmetatable({ nodes = {}, tracked = {}, seen = {}, params = {}, sinks = {}, made = {},
                        module_params = module_params, pool = pool }, Tape)
end

function Tape:leaf(t) self.tracked[t] = true end

-- Whether t carries a gradient on this tape (making a module parameter a leaf on first use).
function Tape:holds(t)
  if self.tracked[t] then return true end
  if self.module_params and gradients.of(t) then
    self.tracked[t] = true
    self.params[#self.params + 1] = t
    local grad = gradients.of(t)
    self.sinks[t] = { param = t, grad = grad, into = grad }
    return true
  end
  return false
end

-- An error raised through pcall without a position was blamed on its caller (pcall): it is
-- blamed on the user's line instead, as nn/calls.lua does.
local function finish(before, ok, ...)
  state.recording = before
  if ok then return ... end
  local err = ...
  if type(err) == 'string' and not err:match('^[^:\n]+:%d+: ') then blame(err) end
  error(err, 0)
end

-- f(...) with this tape recording (the one recording before put back after, on an error too).
function Tape:run(f, ...)
  local before = state.recording
  state.recording = self
  return finish(before, pcall(f, ...))
end

-- f(...) with recording off: an op's own calls of other ops, a module with its own backward.
function M.paused(f, ...)
  local before = state.recording
  state.recording = nil
  return finish(before, pcall(f, ...))
end

function M.recording() return state.recording end

local function pack(...) return { n = select('#', ...), ... } end

local function tensors_of(x, into)
  if is_tensor(x) then into[#into + 1] = x
  elseif type(x) == 'table' then
    for _, v in ipairs(x) do if is_tensor(v) then into[#into + 1] = v end end
  end
  return into
end

local function writes(name, n, args)
  if name:sub(-1) == '_' or rules.IN_PLACE[name] then return true end
  local last = args[n]
  return type(last) == 'table' and last.out ~= nil
end

local function refuse(name)
  blame(string.format("%s: an in-place op (or {out = t}) on a tensor of a recorded forward: its "
                      .. 'backward needs the values it would overwrite (use the op without the '
                      .. 'trailing underscore, x = x:add(y), or work on x:clone())', name))
end

local function record(tape, name, f, ...)
  local n = select('#', ...)
  local args = { ... }
  local inputs, held = {}, false
  for i = 1, n do tensors_of(args[i], inputs) end
  for _, t in ipairs(inputs) do held = tape:holds(t) or held end
  if writes(name, n, args) then
    for _, t in ipairs(inputs) do
      if tape.tracked[t] or tape.seen[t] then refuse(rules.SHOWN[name] or name) end
    end
    return f(...)
  end
  local rule = rules.of[name]
  if not held then return f(...) end
  if rule == false then return M.paused(f, ...) end
  if rule == nil then
    blame(string.format('%s: no gradient rule yet (fused.autograd), and it read a tensor of a '
                        .. 'recorded forward', name))
  end
  if rule.cpu_only then
    for _, t in ipairs(inputs) do
      if t.device ~= 'cpu' then
        blame(string.format('%s: no gradient rule yet for %s tensors (its backward needs %s, CPU only yet)',
                            name, t.device, rule.cpu_only))
      end
    end
  end
  local results
  if rule.forward then results = pack(M.paused(rule.forward, f, ...)) else results = pack(M.paused(f, ...)) end
  local outs = tensors_of(results[1], {})
  for i = 2, results.n do tensors_of(results[i], outs) end
  for _, o in ipairs(outs) do
    for _, t in ipairs(inputs) do
      if rawequal(o, t) then return unpack(results, 1, results.n) end -- the identity: nothing to record
    end
  end
  for _, t in ipairs(inputs) do tape.seen[t] = true end
  for _, o in ipairs(outs) do tape.tracked[o] = true end
  local nodes = tape.nodes
  local k = #nodes + 1
  local pool = tape.pool
  if pool then pool[k] = pool[k] or {} end
  nodes[k] = { name = name, rule = rule, args = args, n = n, outs = outs, results = results,
               buffers = pool and pool[k] }
  for _, o in ipairs(outs) do tape.made[o] = nodes[k] end
  -- A view of a parameter (w:t()) adds its gradient into the same view of the parameter's.
  local sink = rule.sink and tape.sinks[args[1]]
  if sink then
    tape.sinks[outs[1]] = { param = sink.param, grad = sink.grad, into = rule.sink(sink.into, nodes[k]) }
  end
  return unpack(results, 1, results.n)
end

-- A node whose gradients come from replay(grads, reached) (a module's own backward), not a
-- rule: args (packed) get them, results (packed) are its outputs.
function Tape:node(name, args, results, replay)
  local outs, inputs = {}, {}
  for i = 1, results.n do tensors_of(results[i], outs) end
  for i = 1, args.n do tensors_of(args[i], inputs) end
  for _, t in ipairs(inputs) do self.seen[t] = true end
  for _, o in ipairs(outs) do self.tracked[o] = true end
  self.nodes[#self.nodes + 1] = { name = name, args = args, n = args.n, outs = outs, replay = replay }
end

-- f, recorded while a tape runs.
function M.wrap(name, f)
  return function(...)
    local tape = state.recording
    if tape == nil then return f(...) end
    return record(tape, name, f, ...)
  end
end

-- Adds g into grads[t]. The first gradient to reach t is kept as it came (it may be the
-- caller's, another tensor's or a rule's buffer); the second is added into a tensor that the
-- tape owns (a buffer of the node that made t, or new), and the later ones into that in place.
-- Every contribution to t comes before its node replays (the tape runs in reverse), so an
-- owned sum is shared only once complete.
function Tape:accumulate(grads, owned, t, g)
  local old = grads[t]
  if old == nil then
    grads[t] = g
  elseif owned[t] then
    old:add_(g)
  else
    local made, into = self.made[t], nil
    if made then
      for i, o in ipairs(made.outs) do
        if rawequal(o, t) then into = common.out(made, i, t:shape(), t) end -- keyed by the result's place
      end
    end
    grads[t], owned[t] = ops.add(old, g, into), true
  end
end

local function zeros_like(t) return tensor.empty_like(t):zero_() end

-- The tensor that the gradient of node's argument i may be added into in place (a module
-- parameter's gradient, or a view of it, while that is still the parameter's), or nil; a rule
-- that added into it gives false as that argument's gradient.
local function sinks_of(self, node)
  local into
  for i = 1, node.n do
    local sink = self.sinks[node.args[i]]
    if sink and rawequal(gradients.of(sink.param), sink.grad) then
      into = into or {}
      into[i] = sink.into
    end
  end
  return into
end

-- Replays the tape from the gradients {[tensor] = gradient} at its outputs: returns the
-- gradients of every recorded tensor, and adds each module parameter's into its gradient
-- (nn/gradients.lua).
function Tape:backward(grads)
  local nodes, owned = self.nodes, {}
  for k = #nodes, 1, -1 do
    local node = nodes[k]
    local outs, any = node.outs, false
    local g = {}
    for i, o in ipairs(outs) do
      g[i] = grads[o]
      any = any or g[i] ~= nil
    end
    local ga
    if node.replay then
      ga = node.replay(grads, any)
    elseif any then
      local rule = node.rule
      if rule.multi then
        for i, o in ipairs(outs) do g[i] = g[i] or zeros_like(o) end
        ga = rule.backward(node, g)
      else
        ga = rule.backward(node, g[1], rule.into and sinks_of(self, node))
      end
    end
    if ga then
      for i = 1, node.n do
        local a, d = node.args[i], ga[i]
        if d then
          if is_tensor(a) then
            if self.tracked[a] then self:accumulate(grads, owned, a, d) end
          elseif type(a) == 'table' and type(d) == 'table' then
            for j, t in ipairs(a) do
              if d[j] ~= nil and is_tensor(t) and self.tracked[t] then self:accumulate(grads, owned, t, d[j]) end
            end
          end
        end
      end
    end
    nodes[k] = nil -- a tape replays once; its tensors go with it
  end
  for _, p in ipairs(self.params) do
    local d = grads[p]
    if d ~= nil then gradients.of(p):add_(d) end
  end
  return grads
end

-- Wraps the ops in `ops` (fused.* and Tensor methods alike) and the Tensor's own methods: views,
-- conversions and in-place writes. ops/init.lua calls it once, last.
function M.hook(ops, Tensor, indexing)
  for name, f in pairs(ops) do ops[name] = M.wrap(name, f) end
  for name, f in pairs(Tensor) do
    if type(f) == 'function' and (ops[name] or rules.TENSOR[name]) then
      Tensor[name] = ops[name] or M.wrap(name, f)
    end
  end
  local get, set = indexing.get, indexing.set
  indexing.get = M.wrap('index', get)
  indexing.set = M.wrap('index_set', set)
end

-- fns (fused.functional, fused.sparse), each wrapped under prefix .. its name: while a tape
-- records, one that reads a recorded tensor is an error (no rule yet) rather than a result the
-- tape never saw, which would silently carry no gradient.
function M.guard(fns, prefix)
  for name, f in pairs(fns) do
    if type(f) == 'function' then fns[name] = M.wrap(prefix .. name, f) end
  end
  return fns
end

return M
