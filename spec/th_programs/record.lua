-- Runs a Torch7 program as `fused th PROGRAM ARGS...` does, seeded, and prints each loss its
-- criterions compute as a line 'loss <value>' (spec/th_programs_spec.lua reads them). The
-- program is run as it is: the losses are taken by wrapping the criterion classes' updateOutput.
--   fused th spec/th_programs/record.lua PROGRAM [ARGS...]
require 'torch'
require 'nn'
torch.manualSeed(1)
for _, name in ipairs({ 'nn.MSECriterion', 'nn.ClassNLLCriterion', 'nn.CrossEntropyCriterion' }) do
  local class = torch.getmetatable(name)
  local update = class.updateOutput
  class.updateOutput = function(self, input, target)
    local loss = update(self, input, target)
    io.write('loss ', string.format('%.17g', loss), '\n')
    return loss
  end
end
local program = ...
arg = { [0] = program, select(2, ...) }
dofile(program)
