-- optim.lbfgs(opfunc, x, config, state), torch/optim's lbfgs.lua: maxIter (20), maxEval
-- (1.25 maxIter), tolFun (1e-5), tolX (1e-9), nCorrection (100), lineSearch (a function as
-- optim.lswolfe's) with lineSearchOptions, learningRate (1: the fixed step without a line
-- search), verbose. Returns x, the list of f values, and the evaluations made this call.
local fused = require 'fused'
local S = require 'fused.th.optim.state'

local function abs_sum(t) return fused.sum(fused.abs(t)) end

return function(opfunc, x, config, state)
  config = config or {}
  state = state or config
  local maxIter = tonumber(config.maxIter) or 20
  local maxEval = tonumber(config.maxEval) or maxIter * 1.25
  local tolFun = config.tolFun or 1e-5
  local tolX = config.tolX or 1e-9
  local nCorrection = config.nCorrection or 100
  local lineSearch, lineSearchOpts = config.lineSearch, config.lineSearchOptions
  local learningRate = config.learningRate or 1
  local verbose = config.verbose and function(...) print('<optim.lbfgs> ', ...) end or function() end
  state.funcEval = state.funcEval or 0
  state.nIter = state.nIter or 0

  local f, g = S.evaluate('lbfgs', opfunc, x)
  local f_hist = { f }
  local currentFuncEval = 1
  state.funcEval = state.funcEval + 1
  if abs_sum(g) <= tolFun then
    verbose('optimality condition below tolFun')
    return x, f_hist
  end

  local d, t = state.d, state.t
  local old_dirs, old_stps, Hdiag = state.old_dirs, state.old_stps, state.Hdiag
  local g_old, f_old = state.g_old, state.f_old
  local nIter = 0
  while nIter < maxIter do
    nIter = nIter + 1
    state.nIter = state.nIter + 1
    if state.nIter == 1 then
      d = fused.neg(g)
      old_dirs, old_stps, Hdiag = {}, {}, 1
    else
      -- Torch7's names: old_dirs holds the steps s, old_stps the gradient changes y.
      local y = fused.sub(g, g_old)
      local s = fused.mul(d, t)
      local ys = S.dot(y, s)
      if ys > 1e-10 then
        if #old_dirs == nCorrection then
          table.remove(old_dirs, 1)
          table.remove(old_stps, 1)
        end
        old_dirs[#old_dirs + 1], old_stps[#old_stps + 1] = s, y
        Hdiag = ys / S.dot(y, y)
      end
      local k = #old_dirs
      local ro, al = {}, {}
      for i = 1, k do ro[i] = 1 / S.dot(old_stps[i], old_dirs[i]) end
      local q = fused.neg(g)
      for i = k, 1, -1 do
        al[i] = S.dot(old_dirs[i], q) * ro[i]
        S.axpy(q, -al[i], old_stps[i])
      end
      d = fused.mul(q, Hdiag)
      for i = 1, k do
        local be_i = S.dot(old_stps[i], d) * ro[i]
        S.axpy(d, al[i] - be_i, old_dirs[i])
      end
    end
    g_old = g:clone()
    f_old = f
    local gtd = S.dot(g, d)
    if gtd > -tolX then break end
    if state.nIter == 1 then
      t = math.min(1, 1 / abs_sum(g)) * learningRate
    else
      t = learningRate
    end
    local lsFuncEval = 0
    if type(lineSearch) == 'function' then
      f, g, x, t, lsFuncEval = lineSearch(opfunc, x, t, d, f, g, gtd, lineSearchOpts)
      f_hist[#f_hist + 1] = f
    else
      S.axpy(x, t, d)
      if nIter ~= maxIter then
        f, g = S.evaluate('lbfgs', opfunc, x)
        lsFuncEval = 1
        f_hist[#f_hist + 1] = f
      end
    end
    currentFuncEval = currentFuncEval + lsFuncEval
    state.funcEval = state.funcEval + lsFuncEval
    if nIter == maxIter then verbose('reached max number of iterations') break end
    if currentFuncEval >= maxEval then verbose('max nb of function evals') break end
    if abs_sum(g) <= tolFun then verbose('optimality condition below tolFun') break end
    if abs_sum(d) * math.abs(t) <= tolX then verbose('step size below tolX') break end
    if math.abs(f - f_old) < tolX then verbose('function value changing less than tolX') break end
  end
  state.old_dirs, state.old_stps, state.Hdiag = old_dirs, old_stps, Hdiag
  state.g_old, state.f_old, state.t, state.d = g_old, f_old, t, d
  return x, f_hist, currentFuncEval
end
