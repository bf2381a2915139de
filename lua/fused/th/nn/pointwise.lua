-- The element-wise modules, one row each: the output of x and the input's gradient from x,
-- the output y and the output's gradient g (Torch7's Tanh.lua, Sigmoid.lua, ReLU.lua ...).
local fused = require 'fused'
local class = require 'fused.th.class'
local nn = require 'fused.th.nn.namespace'

local function number(fn, name, v)
  if type(v) ~= 'number' then
    error(string.format("%s: argument '%s' expected a number, got %s", fn, name, type(v)), 4)
  end
  return v
end

local function plain(op) return function(_, x) return op(x) end end

-- name, then the output of x, the input's gradient, the constructor's arguments' fields, and
-- the parent when Torch7 had one other than nn.Module (ReLU is a Threshold there).
local ROWS = {
  { 'Tanh', plain(fused.tanh), function(_, x, _, g) return fused.mul(g, fused.d_tanh(x)) end },
  { 'Sigmoid', plain(fused.sigmoid), function(_, x, _, g) return fused.mul(g, fused.d_sigmoid(x)) end },
  { 'Abs', plain(fused.abs), function(_, x, _, g) return fused.mul(g, fused.sign(x)) end },
  { 'Square', function(_, x) return fused.mul(x, x) end, function(_, x, _, g) return fused.mul(g, x):mul_(2) end },
  { 'Sqrt', plain(fused.sqrt), function(_, _, y, g) return fused.div(g, y):mul_(0.5) end },
  { 'Exp', plain(fused.exp), function(_, _, y, g) return fused.mul(g, y) end },
  { 'Log', plain(fused.log), function(_, x, _, g) return fused.div(g, x) end },
  { 'SoftSign',
    function(_, x) return fused.div(x, fused.abs(x):add_(1)) end,
    function(_, x, _, g) local d = fused.abs(x):add_(1) return fused.div(g, d:mul_(d)) end },
  { 'LogSigmoid', -- log(sigmoid(x)) = -log(1 + exp(-x)), written to stay finite
    function(_, x) return fused.neg(fused.relu(fused.neg(x))):sub_(fused.log(fused.exp(fused.neg(fused.abs(x))):add_(1))) end,
    function(_, x, _, g) return fused.mul(g, fused.sigmoid(fused.neg(x))) end },
  { 'Threshold',
    function(self, x) return fused.where(fused.gt(x, self.threshold), x, self.val) end,
    function(self, x, _, g) return fused.mul(g, fused.gt(x, self.threshold)) end,
    init = function(self, th, v) self.threshold, self.val = number('nn.Threshold', 'th', th or 1e-6), number('nn.Threshold', 'v', v or 0) end },
  { 'ReLU', parent = 'nn.Threshold', init = function(self) self.threshold, self.val = 0, 0 end },
  { 'LeakyReLU',
    function(self, x) return fused.where(fused.gt(x, 0), x, fused.mul(x, self.negval)) end,
    function(self, x, _, g) return fused.where(fused.gt(x, 0), g, fused.mul(g, self.negval)) end,
    init = function(self, negval) self.negval = type(negval) == 'number' and negval or 1 / 100 end },
  { 'ELU',
    function(self, x) return fused.where(fused.gt(x, 0), x, fused.exp(x):sub_(1):mul_(self.alpha)) end,
    function(self, x, y, g) return fused.where(fused.gt(x, 0), g, fused.mul(g, fused.add(y, self.alpha))) end,
    init = function(self, alpha) self.alpha = number('nn.ELU', 'alpha', alpha or 1) end },
  { 'SoftPlus', -- log(1 + exp(beta x)) / beta, x itself past beta x > threshold (20), as Torch7's
    function(self, x)
      local bx = fused.mul(x, self.beta)
      return fused.where(fused.gt(bx, self.threshold), x, fused.exp(bx):add_(1):log_():div_(self.beta))
    end,
    function(self, x, _, g)
      local bx = fused.mul(x, self.beta)
      return fused.where(fused.gt(bx, self.threshold), g, fused.mul(g, fused.sigmoid(bx)))
    end,
    init = function(self, beta) self.beta, self.threshold = number('nn.SoftPlus', 'beta', beta or 1), 20 end },
  { 'Power',
    function(self, x) return fused.pow(x, self.pow) end,
    function(self, x, _, g) return fused.mul(g, fused.pow(x, self.pow - 1)):mul_(self.pow) end,
    init = function(self, p) self.pow = number('nn.Power', 'p', p) end },
  { 'MulConstant',
    function(self, x) return fused.mul(x, self.constant_scalar) end,
    function(self, _, _, g) return fused.mul(g, self.constant_scalar) end,
    init = function(self, c) self.constant_scalar = number('nn.MulConstant', 'constant_scalar', c) end },
  { 'AddConstant',
    function(self, x) return fused.add(x, self.constant_scalar) end,
    function(_, _, _, g) return g:clone() end,
    init = function(self, c) self.constant_scalar = number('nn.AddConstant', 'constant_scalar', c) end },
  { 'HardTanh',
    function(self, x) return fused.clamp(x, self.min_val, self.max_val) end,
    function(self, x, _, g) return fused.mul(g, fused.gt(x, self.min_val)):mul_(fused.lt(x, self.max_val)) end,
    init = function(self, min, max) self.min_val, self.max_val = min or -1, max or 1 end },
}

-- Arguments Torch7 took that change nothing here (the `inplace` flags: the output is always a
-- new tensor).
for _, row in ipairs(ROWS) do
  local name, forward, backward, init = row[1], row[2], row[3], row.init
  local cls = class.class('nn.' .. name, row.parent or 'nn.Module', nn)
  function cls:__init(...)
    nn.Module.__init(self)
    if init then init(self, ...) end
  end
  if forward then
    function cls:updateOutput(input)
      self.output = forward(self, input)
      return self.output
    end
    function cls:updateGradInput(input, gradOutput)
      self.gradInput = backward(self, input, self.output, gradOutput)
      return self.gradInput
    end
  end
end
