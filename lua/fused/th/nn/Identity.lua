-- nn.Identity: the input itself, and the output's gradient as the input's (nngraph's input
-- nodes are nn.Identity()()).
local class = require 'fused.th.class'
local nn = require 'fused.th.nn.namespace'

local Identity = class.class('nn.Identity', 'nn.Module', nn)

function Identity:updateOutput(input)
  self.output = input
  return input
end

function Identity:updateGradInput(input, gradOutput)
  self.gradInput = gradOutput
  return gradOutput
end

return Identity
