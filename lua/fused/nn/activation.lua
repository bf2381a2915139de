-- Makes the elementwise activation modules (nn.Tanh, nn.Sigmoid, nn.ReLU): y = f(x) on a
-- tensor of any shape; backward is d_y ⊙ f'(x), from the input that forward kept.
local Module = require 'fused.nn.Module'
local inputs = require 'fused.nn.inputs'

return function(name, f, d_f)
  local Activation = Module:extend(name)

  function Activation:forward(x, ...)
    inputs.no_more(name .. ':forward', 1, ...)
    inputs.floating(x, name .. ':forward', 'input')
    self.buffers.output = f(x, { out = self:buffer('output', x) })
    self.saved = { input = x }
    return self.buffers.output
  end

  function Activation:backward(d_y)
    local x = self:expect_saved().input
    self:expect_d_output(d_y, x:shape(), name .. ':backward', x)
    self.buffers.gradInput = d_f(x, { out = self:buffer('gradInput', d_y) }):mul_(d_y)
    return self.buffers.gradInput
  end

  return Activation
end
