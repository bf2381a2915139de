-- The LLTM cell built only from public Tensor ops, op by op: the counterpart of the
-- tutorial's pure-Python LLTM (its backward written out as the tutorial's C++ one is), for
-- cross-checks against the fused LLTMCell and as the benchmark's baseline. Same parameters,
-- same protocol, same results. Every intermediate is a buffer written through {out = ...} or
-- in place, so a step of unchanged shapes allocates nothing.
local Module = require 'fused.nn.Module'
local LLTMCell = require 'fused.nn.LLTMCell'
local ops = require 'fused.ops'
local inputs = require 'fused.nn.inputs'

local LLTMCellComposed = Module:extend('LLTMCellComposed')
LLTMCellComposed.has_c = true

function LLTMCellComposed:__init(input_features, state_size, opts, ...)
  inputs.no_more('LLTMCellComposed', 3, ...)
  LLTMCell.init_parameters(self, input_features, state_size, opts)
end

LLTMCellComposed.extra_repr = LLTMCell.extra_repr

-- An h or c that is this cell's own output is copied first, as LLTMCell does.
function LLTMCellComposed:forward(x, h, c, ...)
  LLTMCell.expect_inputs(self, 'LLTMCellComposed:forward', x, h, c, ...)
  local b, w = self.buffers, self.weight
  local function out(name) return { out = self:buffer(name, w) } end
  local function gate(name, z) return self:buffer_shaped(name, z:shape(), w):copy_(z) end
  h, c = self:unshared(h), self:unshared(c)
  b.X = ops.cat({ h, x }, 2, out('X'))
  b.gates = ops.addmm(self.bias, b.X, w:t(), out('gates'))
  local z = b.gates:chunk(3, 2)
  b.z1, b.z2, b.z3 = gate('z1', z[1]), gate('z2', z[2]), gate('z3', z[3])
  b.input_gate = ops.sigmoid(b.z1, out('input_gate'))
  b.output_gate = ops.sigmoid(b.z2, out('output_gate'))
  b.candidate = ops.elu(b.z3, 1, out('candidate'))
  b.new_c = ops.mul(b.candidate, b.input_gate, out('new_c')):add_(c)
  b.tanh_new_c = ops.tanh(b.new_c, out('tanh_new_c'))
  b.new_h = ops.mul(b.tanh_new_c, b.output_gate, out('new_h'))
  self.saved = b
  return b.new_h, b.new_c
end

-- Writes only d_ buffers: backward may run more than once per forward.
function LLTMCellComposed:backward(grad_h, grad_c)
  local s, w, H = self:expect_saved(), self.weight, self.state_size
  LLTMCell.expect_grads(self, 'LLTMCellComposed:backward', s.new_h, grad_h, grad_c)
  local function out(name) return { out = self:buffer(name, w) } end
  s.d_output_gate = ops.mul(s.tanh_new_c, grad_h, out('d_output_gate'))
  s.d_tanh_new_c = ops.mul(s.output_gate, grad_h, out('d_tanh_new_c'))
  s.d_new_c = ops.d_tanh(s.new_c, out('d_new_c')):mul_(s.d_tanh_new_c):add_(grad_c)
  s.d_candidate = ops.mul(s.input_gate, s.d_new_c, out('d_candidate'))
  s.d_input_gate = ops.mul(s.candidate, s.d_new_c, out('d_input_gate'))
  s.d_input_gate:mul_(ops.d_sigmoid(s.z1, out('d_z')))
  s.d_output_gate:mul_(ops.d_sigmoid(s.z2, out('d_z')))
  s.d_candidate:mul_(ops.d_elu(s.z3, 1, out('d_z')))
  s.d_gates = ops.cat({ s.d_input_gate, s.d_output_gate, s.d_candidate }, 2, out('d_gates'))
  self.grad.weight:addmm_(s.d_gates:t(), s.X)
  s.bias_sum = ops.sum(s.d_gates, 1, out('bias_sum'))
  self.grad.bias:add_(s.bias_sum:view(3 * H))
  s.d_X = ops.matmul(s.d_gates, w, out('d_X'))
  local d_h = self:buffer_shaped('d_h', { s.d_X:size(1), H }, w):copy_(s.d_X:narrow(2, 1, H))
  local d_x = self:buffer_shaped('d_x', { s.d_X:size(1), self.input_features }, w)
    :copy_(s.d_X:narrow(2, H + 1, self.input_features))
  return d_x, d_h, s.d_new_c
end

return LLTMCellComposed
