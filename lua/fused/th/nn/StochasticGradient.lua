-- nn.StochasticGradient(module, criterion): Torch7's trainer (nn's StochasticGradient.lua).
-- train(dataset) runs maxIteration passes (25) over dataset[1 .. dataset:size()], each entry
-- {input, target}, in a random order (shuffleIndices), stepping the module by each example's
-- gradient times learningRate (0.01, decayed as learningRate / (1 + iteration *
-- learningRateDecay)); hookExample(self, example) and hookIteration(self, iteration, error)
-- are called as Torch7's, and the error printed when verbose.
local fused = require 'fused'
local class = require 'fused.th.class'
local nn = require 'fused.th.nn.namespace'

local StochasticGradient = class.class('nn.StochasticGradient', nn)

function StochasticGradient:__init(module, criterion)
  self.learningRate = 0.01
  self.learningRateDecay = 0
  self.maxIteration = 25
  self.shuffleIndices = true
  self.module = module
  self.criterion = criterion
  self.verbose = true
end

function StochasticGradient:train(dataset)
  local iteration, currentLearningRate = 1, self.learningRate
  local module, criterion = self.module, self.criterion
  local n = dataset:size()
  local order = {}
  if self.shuffleIndices then
    local _, perm = fused.sort(fused.rand({ n }, { dtype = 'float64' }), 1)
    order = perm:totable()
  else
    for t = 1, n do order[t] = t end
  end
  print('# StochasticGradient: training')
  while true do
    local currentError = 0
    for t = 1, n do
      local example = dataset[order[t]]
      local input, target = example[1], example[2]
      currentError = currentError + criterion:forward(module:forward(input), target)
      module:updateGradInput(input, criterion:updateGradInput(module.output, target))
      module:accUpdateGradParameters(input, criterion.gradInput, currentLearningRate)
      if self.hookExample then self.hookExample(self, example) end
    end
    currentError = currentError / n
    if self.hookIteration then self.hookIteration(self, iteration, currentError) end
    if self.verbose then print('# current error = ' .. currentError) end
    iteration = iteration + 1
    currentLearningRate = self.learningRate / (1 + iteration * self.learningRateDecay)
    if self.maxIteration > 0 and iteration > self.maxIteration then
      print('# StochasticGradient: you have reached the maximum number of iterations')
      print('# training error = ' .. currentError)
      break
    end
  end
end

return StochasticGradient
