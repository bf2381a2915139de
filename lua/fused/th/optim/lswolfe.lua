-- optim.lswolfe(opfunc, x, t, d, f, g, gtd[, options]), torch/optim's lswolfe.lua: a line
-- search along d from x for a step t meeting the strong Wolfe conditions (options c1 1e-4,
-- c2 0.9, tolX 1e-9, maxIter 20, verbose), for optim.lbfgs's lineSearch. Returns f and g at
-- the new x, x (moved in place to x + t d), t and the evaluations made.
local S = require 'fused.th.optim.state'
local polyinterp = require 'fused.th.optim.polyinterp'

return function(opfunc, x, t, d, f, g, gtd, options)
  options = options or {}
  local c1, c2 = options.c1 or 1e-4, options.c2 or 0.9
  local tolX, maxIter = options.tolX or 1e-9, options.maxIter or 20
  local verbose = options.verbose and function(...) print('<optim.lswolfe> ', ...) end or function() end
  local x_init = x:clone()
  local function at(step)
    x:copy_(x_init)
    S.axpy(x, step, d)
    local f_at, g_at = S.evaluate('lswolfe', opfunc, x)
    return f_at, g_at:clone(), S.dot(g_at, d)
  end
  local f_new, g_new, gtd_new = at(t)
  local lsFuncEval = 1
  local LSiter, t_prev, done = 0, 0, false
  local f_prev, g_prev, gtd_prev = f, g:clone(), gtd
  -- The bracket: steps, their values and gradients (Lua lists of one or two).
  local bracket, bracketF, bracketG
  while LSiter < maxIter do
    if f_new > f + c1 * t * gtd or (LSiter > 1 and f_new >= f_prev) then
      bracket, bracketF, bracketG = { t_prev, t }, { f_prev, f_new }, { g_prev, g_new }
      break
    elseif math.abs(gtd_new) <= -c2 * gtd then
      bracket, bracketF, bracketG = { t }, { f_new }, { g_new }
      done = true
      break
    elseif gtd_new >= 0 then
      bracket, bracketF, bracketG = { t_prev, t }, { f_prev, f_new }, { g_prev, g_new }
      break
    end
    local tmp = t_prev
    t_prev = t
    t = polyinterp({ { tmp, f_prev, gtd_prev }, { t, f_new, gtd_new } }, t + 0.01 * (t - tmp), t * 10)
    f_prev, g_prev, gtd_prev = f_new, g_new, gtd_new
    f_new, g_new, gtd_new = at(t)
    lsFuncEval = lsFuncEval + 1
    LSiter = LSiter + 1
  end
  if LSiter == maxIter then
    bracket, bracketF, bracketG = { 0, t }, { f, f_new }, { g:clone(), g_new }
  end
  local insufProgress = false
  while not done and LSiter < maxIter do
    local LOpos = bracketF[2] < bracketF[1] and 2 or 1
    local f_LO, HIpos = bracketF[LOpos], 3 - LOpos
    t = polyinterp({ { bracket[1], bracketF[1], S.dot(bracketG[1], d) },
                     { bracket[2], bracketF[2], S.dot(bracketG[2], d) } })
    local bmax, bmin = math.max(bracket[1], bracket[2]), math.min(bracket[1], bracket[2])
    if math.min(bmax - t, t - bmin) / (bmax - bmin) < 0.1 then
      if insufProgress or t >= bmax or t <= bmin then
        if math.abs(t - bmax) < math.abs(t - bmin) then t = bmax - 0.1 * (bmax - bmin) else t = bmin + 0.1 * (bmax - bmin) end
        insufProgress = false
      else
        insufProgress = true
      end
    else
      insufProgress = false
    end
    f_new, g_new, gtd_new = at(t)
    lsFuncEval = lsFuncEval + 1
    LSiter = LSiter + 1
    if f_new > f + c1 * t * gtd or f_new >= f_LO then
      bracket[HIpos], bracketF[HIpos], bracketG[HIpos] = t, f_new, g_new
    else
      if math.abs(gtd_new) <= -c2 * gtd then
        done = true
      elseif gtd_new * (bracket[HIpos] - bracket[LOpos]) >= 0 then
        bracket[HIpos], bracketF[HIpos], bracketG[HIpos] = bracket[LOpos], bracketF[LOpos], bracketG[LOpos]
      end
      bracket[LOpos], bracketF[LOpos], bracketG[LOpos] = t, f_new, g_new
    end
    if not done and math.abs((bracket[1] - bracket[2]) * gtd_new) < tolX then break end
  end
  if LSiter == maxIter then verbose('reached max number of iterations') end
  local LOpos = (bracketF[2] and bracketF[2] < bracketF[1]) and 2 or 1
  t, f_new, g_new = bracket[LOpos], bracketF[LOpos], bracketG[LOpos]
  x:copy_(x_init)
  S.axpy(x, t, d)
  return f_new, g_new, x, t, lsFuncEval
end
