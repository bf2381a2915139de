-- Torch7's optim inside `fused th` (lua/fused/th/optim.lua): each function's steps against
-- the same update written in plain Lua from torch/optim's code (on Lua arrays), in float64,
-- for every option, on f(x) = sum a_i (x_i - c_i)^2 + x_i^4 / 4; and a model trained through
-- getParameters and a closure, as Torch7 programs do.
local helper = require 'spec.helper'
local fused = helper.fused
local optim = require 'fused.th.optim'
local nn = require 'fused.th.nn'

local A = { 1, 2, 0.5, 3, 1.5 }
local C = { 0.3, -1, 2, 0.5, -0.7 }
local X0 = { 1, 0.5, -0.5, 2, 0 }

local function f_lua(x)
  local f, g = 0, {}
  for i = 1, #x do
    f = f + A[i] * (x[i] - C[i]) ^ 2 + x[i] ^ 4 / 4
    g[i] = 2 * A[i] * (x[i] - C[i]) + x[i] ^ 3
  end
  return f, g
end

local a, c = fused.tensor(A, { dtype = 'float64' }), fused.tensor(C, { dtype = 'float64' })
local function f_fused(x)
  local d = fused.sub(x, c)
  local x2 = fused.mul(x, x)
  local f = fused.sum(fused.mul(fused.mul(d, d), a)) + fused.sum(fused.mul(x2, x2)) / 4
  return f, fused.add(fused.mul(d, a):mul_(2), fused.mul(x2, x))
end

local function map(x, fn) local y = {} for i = 1, #x do y[i] = fn(x[i], i) end return y end
local function copy(x) return map(x, function(v) return v end) end
local function dot(u, v) local s = 0 for i = 1, #u do s = s + u[i] * v[i] end return s end

-- torch/optim's updates on Lua arrays: each takes (x, config, state) and returns fx.
local reference = {}

function reference.sgd(x, config, state)
  local lr, lrd, wd = config.learningRate or 1e-3, config.learningRateDecay or 0, config.weightDecay or 0
  local mom = config.momentum or 0
  local damp = config.dampening or mom
  state.evalCounter = state.evalCounter or 0
  local fx, g = f_lua(x)
  if wd ~= 0 then g = map(g, function(v, i) return v + wd * x[i] end)
  elseif config.weightDecays then g = map(g, function(v, i) return v + config.weightDecays[i] * x[i] end) end
  if mom ~= 0 then
    if not state.dfdx then state.dfdx = copy(g)
    else state.dfdx = map(state.dfdx, function(v, i) return v * mom + (1 - damp) * g[i] end) end
    if config.nesterov then g = map(g, function(v, i) return v + mom * state.dfdx[i] end) else g = state.dfdx end
  end
  local clr = lr / (1 + state.evalCounter * lrd)
  for i = 1, #x do x[i] = x[i] - clr * (config.learningRates and config.learningRates[i] or 1) * g[i] end
  state.evalCounter = state.evalCounter + 1
  return fx
end

function reference.adam(x, config, state)
  local lr, lrd = config.learningRate or 0.001, config.learningRateDecay or 0
  local b1, b2, eps, wd = config.beta1 or 0.9, config.beta2 or 0.999, config.epsilon or 1e-8, config.weightDecay or 0
  local fx, g = f_lua(x)
  if wd ~= 0 then g = map(g, function(v, i) return v + wd * x[i] end) end
  state.t = state.t or 0
  state.m, state.v = state.m or map(x, function() return 0 end), state.v or map(x, function() return 0 end)
  local clr = lr / (1 + state.t * lrd)
  state.t = state.t + 1
  local step = clr * math.sqrt(1 - b2 ^ state.t) / (1 - b1 ^ state.t)
  for i = 1, #x do
    state.m[i] = b1 * state.m[i] + (1 - b1) * g[i]
    state.v[i] = b2 * state.v[i] + (1 - b2) * g[i] * g[i]
    x[i] = x[i] - step * state.m[i] / (math.sqrt(state.v[i]) + eps)
  end
  return fx
end

function reference.adagrad(x, config, state)
  local lr, lrd, wd = config.learningRate or 1e-3, config.learningRateDecay or 0, config.weightDecay or 0
  state.evalCounter = state.evalCounter or 0
  local fx, g = f_lua(x)
  if wd ~= 0 then g = map(g, function(v, i) return v + wd * x[i] end) end
  local clr = lr / (1 + state.evalCounter * lrd)
  state.var = state.var or map(x, function() return 0 end)
  for i = 1, #x do
    state.var[i] = state.var[i] + g[i] * g[i]
    x[i] = x[i] - clr * g[i] / (math.sqrt(state.var[i]) + 1e-10)
  end
  state.evalCounter = state.evalCounter + 1
  return fx
end

function reference.rmsprop(x, config, state)
  local lr, alpha, eps, wd = config.learningRate or 1e-2, config.alpha or 0.99, config.epsilon or 1e-8, config.weightDecay or 0
  local fx, g = f_lua(x)
  if wd ~= 0 then g = map(g, function(v, i) return v + wd * x[i] end) end
  state.m = state.m or map(x, function() return config.initialMean or 0 end)
  for i = 1, #x do
    state.m[i] = alpha * state.m[i] + (1 - alpha) * g[i] * g[i]
    x[i] = x[i] - lr * g[i] / (math.sqrt(state.m[i]) + eps)
  end
  return fx
end

function reference.nag(x, config, state)
  local lr, lrd, wd, mom = config.learningRate or 1e-3, config.learningRateDecay or 0, config.weightDecay or 0, config.momentum or 0.9
  state.evalCounter = state.evalCounter or 0
  if state.dfdx then for i = 1, #x do x[i] = x[i] + mom * state.dfdx[i] end end
  local fx, g = f_lua(x)
  if wd ~= 0 then g = map(g, function(v, i) return v + wd * x[i] end) end
  local clr = lr / (1 + state.evalCounter * lrd)
  state.dfdx = state.dfdx and map(state.dfdx, function(v) return v * mom end) or map(x, function() return 0 end)
  for i = 1, #x do
    local delta = (config.learningRates and config.learningRates[i] or 1) * g[i]
    x[i] = x[i] - clr * delta
    state.dfdx[i] = state.dfdx[i] - clr * delta
  end
  state.evalCounter = state.evalCounter + 1
  return fx
end

function reference.adadelta(x, config, state)
  local rho, eps, wd = config.rho or 0.9, config.eps or 1e-6, config.weightDecay or 0
  local fx, g = f_lua(x)
  if wd ~= 0 then g = map(g, function(v, i) return v + wd * x[i] end) end
  state.var = state.var or map(x, function() return 0 end)
  state.acc = state.acc or map(x, function() return 0 end)
  for i = 1, #x do
    state.var[i] = rho * state.var[i] + (1 - rho) * g[i] * g[i]
    local delta = math.sqrt(state.acc[i] + eps) / math.sqrt(state.var[i] + eps) * g[i]
    x[i] = x[i] - delta
    state.acc[i] = rho * state.acc[i] + (1 - rho) * delta * delta
  end
  return fx
end

function reference.adamax(x, config, state)
  local lr, b1, b2, eps, wd = config.learningRate or 0.002, config.beta1 or 0.9, config.beta2 or 0.999,
    config.epsilon or 1e-38, config.weightDecay or 0
  local fx, g = f_lua(x)
  if wd ~= 0 then g = map(g, function(v, i) return v + wd * x[i] end) end
  state.t = (state.t or 0) + 1
  state.m, state.u = state.m or map(x, function() return 0 end), state.u or map(x, function() return 0 end)
  for i = 1, #x do
    state.m[i] = b1 * state.m[i] + (1 - b1) * g[i]
    state.u[i] = math.max(b2 * state.u[i], math.abs(g[i]) + eps)
    x[i] = x[i] - lr / (1 - b1 ^ state.t) * state.m[i] / state.u[i]
  end
  return fx
end

-- lbfgs without a line search, as torch/optim's: returns the list of f values.
function reference.lbfgs(x, config, state)
  local maxIter, tolFun, tolX = config.maxIter or 20, config.tolFun or 1e-5, config.tolX or 1e-9
  local maxEval, nCorrection, lr = config.maxEval or maxIter * 1.25, config.nCorrection or 100, config.learningRate or 1
  state.nIter = state.nIter or 0
  local f, g = f_lua(x)
  local hist, evals = { f }, 1
  local function abs_sum(v) local s = 0 for i = 1, #v do s = s + math.abs(v[i]) end return s end
  if abs_sum(g) <= tolFun then return hist end
  local d, t, dirs, stps, Hdiag, g_old, f_old = state.d, state.t, state.dirs, state.stps, state.Hdiag, state.g_old, state.f_old
  local n = 0
  while n < maxIter do
    n, state.nIter = n + 1, state.nIter + 1
    if state.nIter == 1 then
      d, dirs, stps, Hdiag = map(g, function(v) return -v end), {}, {}, 1
    else
      local y = map(g, function(v, i) return v - g_old[i] end)
      local s = map(d, function(v) return v * t end)
      local ys = dot(y, s)
      if ys > 1e-10 then
        if #dirs == nCorrection then table.remove(dirs, 1) table.remove(stps, 1) end
        dirs[#dirs + 1], stps[#stps + 1], Hdiag = s, y, ys / dot(y, y)
      end
      local ro, al = {}, {}
      for i = 1, #dirs do ro[i] = 1 / dot(stps[i], dirs[i]) end
      local q = map(g, function(v) return -v end)
      for i = #dirs, 1, -1 do
        al[i] = dot(dirs[i], q) * ro[i]
        q = map(q, function(v, j) return v - al[i] * stps[i][j] end)
      end
      d = map(q, function(v) return v * Hdiag end)
      for i = 1, #dirs do
        local be = dot(stps[i], d) * ro[i]
        d = map(d, function(v, j) return v + (al[i] - be) * dirs[i][j] end)
      end
    end
    g_old, f_old = copy(g), f
    if dot(g, d) > -tolX then break end
    t = state.nIter == 1 and math.min(1, 1 / abs_sum(g)) * lr or lr
    for i = 1, #x do x[i] = x[i] + t * d[i] end
    if n ~= maxIter then
      f, g = f_lua(x)
      evals = evals + 1
      hist[#hist + 1] = f
    end
    if n == maxIter or evals >= maxEval or abs_sum(g) <= tolFun or abs_sum(d) * math.abs(t) <= tolX
       or math.abs(f - f_old) < tolX then break end
  end
  state.d, state.t, state.dirs, state.stps, state.Hdiag, state.g_old, state.f_old = d, t, dirs, stps, Hdiag, g_old, f_old
  return hist
end

local CASES = {
  { 'sgd', { learningRate = 0.05 } },
  { 'sgd', { learningRate = 0.05, learningRateDecay = 0.1, weightDecay = 0.01, momentum = 0.9 } },
  { 'sgd', { learningRate = 0.05, momentum = 0.8, dampening = 0.3 } },
  { 'sgd', { learningRate = 0.05, momentum = 0.9, dampening = 0, nesterov = true } },
  { 'sgd', { learningRate = 0.05, learningRates = { 1, 0.5, 2, 1, 0.1 }, weightDecays = { 0, 0.1, 0.2, 0, 0.3 } } },
  { 'adam', {} },
  { 'adam', { learningRate = 0.1, learningRateDecay = 0.05, beta1 = 0.8, beta2 = 0.99, epsilon = 1e-6, weightDecay = 0.01 } },
  { 'adagrad', { learningRate = 0.1 } },
  { 'adagrad', { learningRate = 0.1, learningRateDecay = 0.1, weightDecay = 0.02 } },
  { 'rmsprop', {} },
  { 'rmsprop', { learningRate = 0.02, alpha = 0.9, epsilon = 1e-6, weightDecay = 0.01, initialMean = 0.1 } },
  { 'nag', { learningRate = 0.02 } },
  { 'nag', { learningRate = 0.02, momentum = 0.5, learningRateDecay = 0.1, weightDecay = 0.01, learningRates = { 1, 2, 1, 0.5, 1 } } },
  { 'adadelta', {} },
  { 'adadelta', { rho = 0.8, eps = 1e-4, weightDecay = 0.05 } },
  { 'adamax', {} },
  { 'adamax', { learningRate = 0.05, beta1 = 0.7, beta2 = 0.9, epsilon = 1e-8, weightDecay = 0.01 } },
  { 'lbfgs', { maxIter = 5 } },
  { 'lbfgs', { maxIter = 4, learningRate = 0.5, nCorrection = 2 } },
}

describe('th optim against torch/optim written in plain Lua (float64)', function()
  for _, case in ipairs(CASES) do
    local name, config = case[1], case[2]
    local opts = {}
    for k, v in pairs(config) do opts[#opts + 1] = k end
    table.sort(opts)
    it(name .. ' with ' .. (#opts > 0 and table.concat(opts, ', ') or 'defaults'), function()
      local function fused_config()
        local cfg = {}
        for k, v in pairs(config) do cfg[k] = type(v) == 'table' and fused.tensor(v, { dtype = 'float64' }) or v end
        return cfg
      end
      local x, xl = fused.tensor(X0, { dtype = 'float64' }), copy(X0)
      local cfg, state, ref_state = fused_config(), {}, {}
      for step = 1, 6 do
        local xr, fs = optim[name](f_fused, x, cfg, state)
        assert.equals(x, xr)
        local ref = reference[name](xl, config, ref_state)
        local ref_f = type(ref) == 'table' and ref or { ref }
        assert.equals(#ref_f, #fs)
        for i = 1, #fs do assert.is_true(math.abs(fs[i] - ref_f[i]) <= 1e-10 * math.max(1, math.abs(ref_f[i]))) end
        for i = 1, #X0 do
          assert.is_true(math.abs(x[i] - xl[i]) <= 1e-10,
                         string.format('%s step %d x[%d]: %.17g, expected %.17g', name, step, i, x[i], xl[i]))
        end
      end
    end)
  end

  it('sgd refuses Nesterov without momentum, as optim did', function()
    assert.has_error(function() optim.sgd(f_fused, fused.tensor(X0, { dtype = 'float64' }), { nesterov = true }) end,
      'optim.sgd: Nesterov momentum requires a momentum and zero dampening')
  end)

  it("names opfunc's result when it is not a gradient of x's size", function()
    local x = fused.tensor(X0, { dtype = 'float64' })
    assert.has_error(function() optim.adam(function() return 1, fused.zeros(3) end, x) end,
      "optim.adam: opfunc's second result expected df/dx, a tensor of x's 5 elements, got 3 elements")
    assert.has_error(function() optim.sgd(f_fused, { 1, 2 }) end,
      "optim.sgd: argument 'x' expected a tensor (the flat parameters: getParameters()), got table")
  end)
end)

describe('th optim line search', function()
  it("polyinterp gives the cubic's minimiser through two points, within bounds", function()
    -- f(t) = t^3 - 3t: f(0) = 0, f'(0) = -3, f(2) = 2, f'(2) = 9; its minimum at 1
    local points = { { 0, 0, -3 }, { 2, 2, 9 } }
    assert.is_true(math.abs(optim.polyinterp(points) - 1) < 1e-12)
    assert.is_true(math.abs(optim.polyinterp(fused.tensor(points, { dtype = 'float64' }), 0, 3) - 1) < 1e-12)
    assert.equals(-5, optim.polyinterp(points, -5, 5)) -- f(-5) = -110, below f(1) = -2
    assert.equals(1.5, optim.polyinterp(points, 1.5, 5))
    assert.equals(0.5, optim.polyinterp({ { 0, 0, 3 }, { 1, 2, 3 } })) -- no real minimiser: the mean
  end)

  it('lswolfe returns a step meeting the strong Wolfe conditions, x moved to it', function()
    local x = fused.tensor(X0, { dtype = 'float64' })
    local f0, g0 = f_fused(x)
    local d = fused.neg(g0)
    local gtd = fused.sum(fused.mul(g0, d))
    local x0 = x:clone()
    local f1, g1, x1, t, evals = optim.lswolfe(f_fused, x, 1, d, f0, g0, gtd)
    assert.equals(x, x1)
    helper.assert_close(x, fused.add(x0, fused.mul(d, t)), 1e-14, 'x + t d')
    local f_check, g_check = f_fused(x)
    assert.is_true(math.abs(f1 - f_check) < 1e-12)
    helper.assert_close(g1, g_check, 1e-14, 'g at the step')
    assert.is_true(f1 <= f0 + 1e-4 * t * gtd, 'sufficient decrease')
    assert.is_true(math.abs(fused.sum(fused.mul(g1, d))) <= -0.9 * gtd, 'curvature')
    assert.is_true(evals >= 1)
  end)

  it('lbfgs with lineSearch = optim.lswolfe reaches the minimum', function()
    local x = fused.tensor(X0, { dtype = 'float64' })
    local _, fs, evals = optim.lbfgs(f_fused, x, { lineSearch = optim.lswolfe, maxIter = 100, tolFun = 1e-12, tolX = 1e-14 })
    local _, g = f_fused(x)
    assert.is_true(fused.sum(fused.abs(g)) < 1e-6, 'gradient ' .. fused.sum(fused.abs(g)))
    assert.is_true(fs[#fs] < fs[1])
    assert.is_true(evals > #fs - 1)
  end)
end)

describe('th optim with getParameters', function()
  it("trains an nn model through a closure, as Torch7's programs do: the loss falls", function()
    fused.manual_seed(5)
    local model = nn.Sequential():add(nn.Linear(4, 8)):add(nn.Tanh()):add(nn.Linear(8, 3)):add(nn.LogSoftMax())
    local criterion = nn.ClassNLLCriterion()
    local inputs = fused.randn({ 16, 4 }, { dtype = 'float64' })
    local targets = fused.tensor({ 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1 }, { dtype = 'float64' })
    local params, grads = model:getParameters()
    local function feval(x)
      if x ~= params then params:copy_(x) end
      grads:zero_()
      local loss = criterion:forward(model:forward(inputs), targets)
      model:backward(inputs, criterion:backward(model.output, targets))
      return loss, grads
    end
    local state = { learningRate = 0.05 }
    local first, last
    for _ = 1, 40 do
      local _, fs = optim.adam(feval, params, state)
      first, last = first or fs[1], fs[1]
    end
    assert.is_true(last < first * 0.5, string.format('loss %g -> %g', first, last))
  end)
end)

describe('th optim ConfusionMatrix and Logger', function()
  it('counts predictions given as classes or scores, and prints as Torch7', function()
    local c = optim.ConfusionMatrix({ 'a', 'b', 'c' })
    c:add(1, 1)
    c:add(2, 1)
    c:add(fused.tensor({ 0.1, 0.7, 0.2 }), 2)
    c:add(3, fused.tensor({ 0, 0, 1 }))
    c:batchAdd(fused.tensor({ { 1, 0, 0 }, { 0, 0, 1 } }), fused.tensor({ 1, 2 }))
    c:add(1, 0) -- a target below 1 is not counted
    assert.same({ { 2, 1, 0 }, { 0, 1, 1 }, { 0, 0, 1 } }, c.mat:totable())
    c:updateValids()
    assert.equals('ConfusionMatrix:\n[[       2       1       0]   66.667% \t[class: a]\n'
                  .. ' [       0       1       1]   50.000% \t[class: b]\n'
                  .. ' [       0       0       1]]  100.000% \t[class: c]\n'
                  .. ' + average row correct: ' .. c.averageValid * 100 .. '% \n'
                  .. ' + average rowUcol correct (VOC measure): ' .. c.averageUnionValid * 100 .. '% \n'
                  .. ' + global correct: ' .. 4 / 6 * 100 .. '%', tostring(c))
    assert.is_true(math.abs(c.averageValid - (2 / 3 + 1 / 2 + 1) / 3) < 1e-6) -- valids are float32, as Torch7's
    assert.is_true(math.abs(c.averageUnionValid - (2 / 3 + 1 / 3 + 1 / 2) / 3) < 1e-6)
    c:zero()
    assert.equals(0, fused.sum(c.mat))
    assert.has_error(function() c:add(4, 1) end, 'optim.ConfusionMatrix: class 4 (target 1) is not one of 1 .. 3')
  end)

  it('logs a line per add under the names, the file whole after each, and says it cannot plot', function()
    local path = os.tmpname()
    local logger = optim.Logger(path)
    logger:setNames { 'train', 'test' }
    logger:add { 0.5, 0.25 }
    assert.equals('train\ttest\t\n 5.0000e-01\t 2.5000e-01\t\n', helper.read(path))
    logger:add { 0.4, 'n/a' }
    assert.equals('train\ttest\t\n 5.0000e-01\t 2.5000e-01\t\n 4.0000e-01\tn/a\t\n', helper.read(path))
    assert.same({ 0.5, 0.4 }, logger.symbols[1])
    local keyed = optim.Logger(path)
    keyed:add { ['train error'] = 1, ['test error'] = 2 }
    assert.equals('test error\ttrain error\t\n 2.0000e+00\t 1.0000e+00\t\n', helper.read(path))
    assert.has_error(function() keyed:add { ['train error'] = {} } end,
      "optim.Logger:add: 'test error' expected a number or a string, got nil")
    local printed
    local print_ = _G.print
    _G.print = function(s) printed = s end
    keyed:plot()
    _G.print = print_
    os.remove(path)
    assert.matches('<Logger> warning: cannot plot', printed, 1, true)
  end)
end)
