-- The LLTM cell built only from public Tensor ops, op by op: the counterpart of the
-- tutorial's pure-Python LLTM (its backward written out as the tutorial's C++ one is), for
-- cross-checks against the fused LLTMCell and as the benchmark's baseline. Same parameters,
-- same protocol, same results.
local Module = require 'fused.nn.Module'
local LLTMCell = require 'fused.nn.LLTMCell'
local ops = require 'fused.ops'

local LLTMCellComposed = Module:extend('LLTMCellComposed')

function LLTMCellComposed:__init(input_features, state_size, opts)
  LLTMCell.init_parameters(self, input_features, state_size, opts)
end

function LLTMCellComposed:forward(x, h, c)
  local X = ops.cat({ h, x }, 2)
  local gates = ops.addmm(self.bias, X, self.weight:t())
  local z = gates:chunk(3, 2)
  local input_gate, output_gate = z[1]:sigmoid(), z[2]:sigmoid()
  local candidate = z[3]:elu()
  local new_c = c + candidate * input_gate
  local tanh_new_c = new_c:tanh()
  local new_h = tanh_new_c * output_gate
  self.saved = {
    X = X, z = z, input_gate = input_gate, output_gate = output_gate, candidate = candidate,
    new_c = new_c, tanh_new_c = tanh_new_c,
  }
  return new_h, new_c
end

function LLTMCellComposed:backward(grad_h, grad_c)
  local s = self:expect_saved()
  local H = self.state_size
  local d_output_gate = s.tanh_new_c * grad_h
  local d_tanh_new_c = s.output_gate * grad_h
  local d_new_c = s.new_c:d_tanh() * d_tanh_new_c + grad_c
  local d_candidate = s.input_gate * d_new_c
  local d_input_gate = s.candidate * d_new_c
  d_input_gate = d_input_gate * s.z[1]:d_sigmoid()
  d_output_gate = d_output_gate * s.z[2]:d_sigmoid()
  d_candidate = d_candidate * s.z[3]:d_elu()
  local d_gates = ops.cat({ d_input_gate, d_output_gate, d_candidate }, 2)
  self.gradWeight:copy(ops.addmm(self.gradWeight, d_gates:t(), s.X))
  self.gradBias:copy(self.gradBias + d_gates:sum(1):view(3 * H))
  local d_X = ops.matmul(d_gates, self.weight)
  local d_h = d_X:narrow(2, 1, H):contiguous()
  local d_x = d_X:narrow(2, H + 1, self.input_features):contiguous()
  return d_x, d_h, d_new_c
end

return LLTMCellComposed
