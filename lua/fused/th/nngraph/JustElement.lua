-- nngraph.JustElement: the one entry of a table of one (node:split(1)), as nngraph's.
local class = require 'fused.th.class'

return function(nngraph)
  local JustElement = class.class('nngraph.JustElement', 'nn.Module', nngraph)

  function JustElement:updateOutput(input)
    if type(input) ~= 'table' or #input ~= 1 then error('nngraph.JustElement: input expected a table of one entry', 3) end
    self.output = input[1]
    return self.output
  end

  function JustElement:updateGradInput(input, gradOutput)
    self.gradInput = { gradOutput }
    return self.gradInput
  end
end
