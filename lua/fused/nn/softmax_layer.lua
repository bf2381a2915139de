-- Makes nn.Softmax and nn.LogSoftmax: y = f(x) along dim (1-based, negative from the end) of a
-- tensor of any shape; backward is f's backward from the output that forward kept.
local Module = require 'fused.nn.Module'
local argcheck = require 'fused.check'

return function(name, f, f_backward)
  local Layer = Module:extend(name)

  function Layer:__init(dim)
    if type(dim) ~= 'number' or dim ~= math.floor(dim) or dim == 0 then
      error(string.format("%s: argument 'dim' expected a dim (an integer, negative from the end), got %s",
                          name, argcheck.type_name(dim)), 3)
    end
    self.dim = dim
  end

  function Layer:extra_repr() return string.format('(dim=%d)', self.dim) end

  function Layer:forward(x)
    argcheck.expect(x, name .. ':forward', 'input')
    self.buffers.output = f(x, self.dim, { out = self:buffer('output', x) })
    self.saved = { output = self.buffers.output }
    return self.buffers.output
  end

  function Layer:backward(d_y)
    local y = self:expect_saved().output
    self:expect_d_output(d_y, y:shape(), name .. ':backward')
    self.buffers.gradInput = f_backward(d_y, y, self.dim, { out = self:buffer('gradInput', d_y) })
    return self.buffers.gradInput
  end

  return Layer
end
