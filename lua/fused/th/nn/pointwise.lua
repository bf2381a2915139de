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

local ROWS = {
  Tanh = { plain(fused.tanh), function(_, x, _, g) return fused.mul(g, fused.d_tanh(x)) end },
  Sigmoid = { plain(fused.sigmoid), function(_, x, _, g) return fused.mul(g, fused.d_sigmoid(x)) end },
  ReLU = { plain(fused.relu), function(_, x, _, g) return fused.mul(g, fused.gt(x, 0)) end },
  Abs = { plain(fused.abs), function(_, x, _, g) return fused.mul(g, fused.sign(x)) end },
  Square = { function(_, x) return fused.mul(x, x) end, function(_, x, _, g) return fused.mul(g, x):mul_(2) end },
  Sqrt = { plain(fused.sqrt), function(_, _, y, g) return fused.div(g, y):mul_(0.5) end },
  Exp = { plain(fused.exp), function(_, _, y, g) return fused.mul(g, y) end },
  Log = { plain(fused.log), function(_, x, _, g) return fused.div(g, x) end },
  Power = {
    function(self, x) return fused.pow(x, self.pow) end,
    function(self, x, _, g) return fused.mul(g, fused.pow(x, self.pow - 1)):mul_(self.pow) end,
    init = function(self, p) self.pow = number('nn.Power', 'p', p) end,
  },
  MulConstant = {
    function(self, x) return fused.mul(x, self.constant_scalar) end,
    function(self, _, _, g) return fused.mul(g, self.constant_scalar) end,
    init = function(self, c) self.constant_scalar = number('nn.MulConstant', 'constant_scalar', c) end,
  },
  AddConstant = {
    function(self, x) return fused.add(x, self.constant_scalar) end,
    function(_, _, _, g) return g:clone() end,
    init = function(self, c) self.constant_scalar = number('nn.AddConstant', 'constant_scalar', c) end,
  },
  HardTanh = {
    function(self, x) return fused.clamp(x, self.min_val, self.max_val) end,
    function(self, x, _, g) return fused.mul(g, fused.gt(x, self.min_val)):mul_(fused.lt(x, self.max_val)) end,
    init = function(self, min, max) self.min_val, self.max_val = min or -1, max or 1 end,
  },
}

-- Arguments Torch7 took that change nothing here (ReLU's and the constants' `inplace`: the
-- output is always a new tensor).
for name, row in pairs(ROWS) do
  local cls = class.class('nn.' .. name, 'nn.Module', nn)
  local forward, backward, init = row[1], row[2], row.init
  function cls:__init(...)
    nn.Module.__init(self)
    if init then init(self, ...) end
  end
  function cls:updateOutput(input)
    self.output = forward(self, input)
    return self.output
  end
  function cls:updateGradInput(input, gradOutput)
    self.gradInput = backward(self, input, self.output, gradOutput)
    return self.gradInput
  end
end
