-- The criterions of Torch7's nn that the public programs use: ClassNLLCriterion,
-- CrossEntropyCriterion, MSECriterion, BCECriterion; each averages over the batch (or the
-- elements) when sizeAverage is true, Torch7's default.
local fused = require 'fused'
local class = require 'fused.th.class'
local nn = require 'fused.th.nn.namespace'

local function batched(fn, input, target)
  local x = input:dim() == 1 and input:view(1, -1) or input
  if x:dim() ~= 2 then error(string.format('%s: input expected a vector or a matrix (a batch of rows), got %d dims', fn, input:dim()), 4) end
  local t = target
  if type(t) == 'number' then t = fused.tensor({ t }) end
  t = t:to('int64'):reshape(-1)
  if t:numel() ~= x:size(1) then
    error(string.format('%s: target expected %d class indices, got %d', fn, x:size(1), t:numel()), 4)
  end
  return x, t
end

-- ClassNLLCriterion(weights, sizeAverage): -sum_i w[t_i] x[i, t_i], divided by sum_i w[t_i]
-- when averaging (x log-probabilities, t class indices from 1).
local NLL = class.class('nn.ClassNLLCriterion', 'nn.Criterion', nn)

function NLL:__init(weights, sizeAverage)
  nn.Criterion.__init(self)
  self.sizeAverage = sizeAverage == nil and true or sizeAverage
  self.weights = weights
end

local function nll_weights(self, x, t)
  if self.weights then return fused.index_select(self.weights:to(x.dtype, x.device), 1, t) end
  return fused.ones({ t:numel() }, { dtype = x.dtype, device = x.device })
end

function NLL:updateOutput(input, target)
  local x, t = batched('nn.ClassNLLCriterion', input, target)
  local w = nll_weights(self, x, t)
  local picked = fused.gather(x, 2, t:view(-1, 1)):view(-1)
  local total = self.sizeAverage and fused.sum(w) or 1
  self.output = -fused.sum(fused.mul(picked, w)) / total
  return self.output
end

function NLL:updateGradInput(input, target)
  local x, t = batched('nn.ClassNLLCriterion', input, target)
  local w = nll_weights(self, x, t)
  local total = self.sizeAverage and fused.sum(w) or 1
  local g = fused.zeros(x:shape(), { dtype = x.dtype, device = x.device })
  local cols = t:view(-1, 1)
  for i = 1, x:size(1) do g[i][cols[i][1]] = -w[i] / total end
  self.gradInput = g:view(input:shape())
  return self.gradInput
end

-- CrossEntropyCriterion(weights): LogSoftMax then ClassNLLCriterion.
local CE = class.class('nn.CrossEntropyCriterion', 'nn.Criterion', nn)

function CE:__init(weights)
  nn.Criterion.__init(self)
  self.lsm = nn.LogSoftMax()
  self.nll = nn.ClassNLLCriterion(weights)
end

function CE:updateOutput(input, target)
  self.output = self.nll:updateOutput(self.lsm:updateOutput(input), target)
  return self.output
end

function CE:updateGradInput(input, target)
  local g = self.nll:updateGradInput(self.lsm.output, target)
  self.gradInput = self.lsm:updateGradInput(input, g)
  return self.gradInput
end

-- MSECriterion(sizeAverage): sum((x - t)^2), divided by the elements when averaging.
local MSE = class.class('nn.MSECriterion', 'nn.Criterion', nn)

function MSE:__init(sizeAverage)
  nn.Criterion.__init(self)
  self.sizeAverage = sizeAverage == nil and true or sizeAverage
end

-- Torch7 compared element by element: a target of another shape with as many elements (a
-- [128] target for a [128, 1] output) is read in the input's shape, not broadcast.
local function as_input(input, target)
  if target:numel() ~= input:numel() then
    error(string.format('nn.MSECriterion: target expected %d elements (as the input), got %d', input:numel(),
                        target:numel()), 4)
  end
  return target:reshape(input:shape())
end

function MSE:updateOutput(input, target)
  local d = fused.sub(input, as_input(input, target))
  self.output = fused.sum(fused.mul(d, d)) / (self.sizeAverage and input:numel() or 1)
  return self.output
end

function MSE:updateGradInput(input, target)
  self.gradInput = fused.sub(input, as_input(input, target)):mul_(2 / (self.sizeAverage and input:numel() or 1))
  return self.gradInput
end

-- BCECriterion(weights, sizeAverage): -sum w (t log(x + eps) + (1 - t) log(1 - x + eps)),
-- eps = 1e-12 as Torch7's, divided by the elements when averaging.
local BCE = class.class('nn.BCECriterion', 'nn.Criterion', nn)
local EPS = 1e-12

function BCE:__init(weights, sizeAverage)
  nn.Criterion.__init(self)
  self.weights = weights
  self.sizeAverage = sizeAverage == nil and true or sizeAverage
end

function BCE:updateOutput(input, target)
  local pos = fused.mul(target, fused.log(fused.add(input, EPS)))
  local neg = fused.mul(fused.sub(1, target), fused.log(fused.sub(1 + EPS, input)))
  local terms = fused.add(pos, neg)
  if self.weights then terms = fused.mul(terms, self.weights) end
  self.output = -fused.sum(terms) / (self.sizeAverage and input:numel() or 1)
  return self.output
end

function BCE:updateGradInput(input, target)
  local denom = fused.mul(fused.sub(1 + EPS, input), fused.add(input, EPS))
  local g = fused.div(fused.sub(input, target), denom)
  if self.weights then g = fused.mul(g, self.weights) end
  self.gradInput = g:div_(self.sizeAverage and input:numel() or 1)
  return self.gradInput
end

-- AbsCriterion, SmoothL1Criterion, DistKLDivCriterion (sizeAverage): sum |x - t|; sum of
-- (x - t)^2 / 2 where |x - t| < 1 and |x - t| - 1/2 elsewhere; sum t (log t - x) where t > 0
-- (x log-probabilities); each divided by the elements when averaging.
local POINTWISE = {
  AbsCriterion = {
    function(x, t) return fused.abs(fused.sub(x, t)) end,
    function(x, t) return fused.sign(fused.sub(x, t)) end,
  },
  SmoothL1Criterion = {
    function(x, t)
      local d = fused.abs(fused.sub(x, t))
      return fused.where(fused.lt(d, 1), fused.mul(d, d):mul_(0.5), fused.sub(d, 0.5))
    end,
    function(x, t) return fused.clamp(fused.sub(x, t), -1, 1) end,
  },
  DistKLDivCriterion = {
    function(x, t)
      local positive = fused.gt(t, 0)
      return fused.where(positive, fused.mul(t, fused.sub(fused.log(fused.where(positive, t, 1)), x)), 0)
    end,
    function(_, t) return fused.neg(t) end,
  },
}

for name, row in pairs(POINTWISE) do
  local cls = class.class('nn.' .. name, 'nn.Criterion', nn)
  function cls:__init(sizeAverage)
    nn.Criterion.__init(self)
    self.sizeAverage = sizeAverage == nil and true or sizeAverage
  end
  function cls:updateOutput(input, target)
    self.output = fused.sum(row[1](input, target)) / (self.sizeAverage and input:numel() or 1)
    return self.output
  end
  function cls:updateGradInput(input, target)
    self.gradInput = row[2](input, target):mul_(1 / (self.sizeAverage and input:numel() or 1))
    return self.gradInput
  end
end

-- ParallelCriterion([repeatTarget]): criterion i on input[i] and target[i] (the one target
-- when repeatTarget), weighted; MultiCriterion: every criterion on the same input and target,
-- weighted. add(criterion[, weight]) adds one (weight 1).
local function combined(name, spread)
  local cls = class.class('nn.' .. name, 'nn.Criterion', nn)
  function cls:__init(repeatTarget)
    nn.Criterion.__init(self)
    self.criterions, self.weights = {}, {}
    self.repeatTarget = repeatTarget
  end
  function cls:add(criterion, weight)
    if not class.is_type_of(criterion, 'nn.Criterion') then
      error(string.format("nn.%s:add: argument 'criterion' expected an nn criterion, got %s", name,
                          class.typename(criterion) or type(criterion)), 2)
    end
    self.criterions[#self.criterions + 1] = criterion
    self.weights[#self.weights + 1] = weight or 1
    return self
  end
  local function args(self, i, input, target)
    if not spread then return input, target end
    return input[i], self.repeatTarget and target or target[i]
  end
  function cls:updateOutput(input, target)
    self.output = 0
    for i, c in ipairs(self.criterions) do self.output = self.output + self.weights[i] * c:updateOutput(args(self, i, input, target)) end
    return self.output
  end
  function cls:updateGradInput(input, target)
    local grads
    for i, c in ipairs(self.criterions) do
      local g = fused.mul(c:updateGradInput(args(self, i, input, target)), self.weights[i])
      if spread then
        grads = grads or {}
        grads[i] = g
      else
        grads = grads and fused.add(grads, g) or g
      end
    end
    self.gradInput = grads
    return grads
  end
end

combined('ParallelCriterion', true)
combined('MultiCriterion', false)
