-- Makes nn.Softmax and nn.LogSoftmax: y = f(x) along dim (1-based, negative from the end) of a
-- tensor of any shape; backward is f's backward from the output that forward kept.
local Module = require 'fused.nn.Module'
local argcheck = require 'fused.check'
local inputs = require 'fused.nn.inputs'
local blame = require 'fused.blame'

return function(name, f, f_backward)
  local Layer = Module:extend(name)

  function Layer:__init(dim, ...)
    inputs.no_more(name, 1, ...)
    if type(dim) ~= 'number' or dim ~= math.floor(dim) or dim == 0 then
      error(string.format("%s: argument 'dim' expected a dim (an integer, negative from the end), got %s",
                          name, argcheck.type_name(dim)), 3)
    end
    self.dim = dim
  end

  function Layer:extra_repr() return string.format('(dim=%d)', self.dim) end

  function Layer:forward(x, ...)
    inputs.no_more(name .. ':forward', 1, ...)
    inputs.floating(x, name .. ':forward', 'input')
    if math.abs(self.dim) > x.ndim then
      blame(string.format("%s:forward: argument 'input' expected at least %d dims (the module's "
                          .. 'dim %d), got shape %s', name, math.abs(self.dim), self.dim,
                          inputs.shape_text(x)))
    end
    self.buffers.output = f(x, self.dim, { out = self:buffer('output', x) })
    self.saved = { output = self.buffers.output }
    return self.buffers.output
  end

  function Layer:backward(d_y)
    local y = self:expect_saved().output
    inputs.shaped(d_y, name .. ':backward', 'd_output', y, y:shape(), "the output's")
    self.buffers.gradInput = f_backward(d_y, y, self.dim, { out = self:buffer('gradInput', d_y) })
    return self.buffers.gradInput
  end

  return Layer
end
