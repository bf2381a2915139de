-- Softmax, log-softmax and logsumexp along dim (1-based; negative counts from the end), stable
-- for any input (each column's max is subtracted before exp: inputs of +-1000 give finite
-- results), float32 and float64, on both devices. softmax and log_softmax keep the input's
-- shape; logsumexp drops dim unless keepdim, as PyTorch (a 1-D input keeps one element, as
-- fused's reductions of a 1-D tensor along a dim do). Their
-- backward, from what forward returned, as d_tanh is tanh's:
--   softmax_backward(grad_output, output, dim)       y = softmax(x): y * (g - sum(g * y))
--   log_softmax_backward(grad_output, output, dim)   y = log_softmax(x): g - exp(y) * sum(g)
--   logsumexp_backward(grad_output, input, output, dim, keepdim)   g * exp(x - y)
local lib = require 'fused.lib'
local argcheck = require 'fused.check'
local blame = require 'fused.blame'
local out_ = require 'fused.ops.out'
local pointwise = require 'fused.ops.pointwise'

local C, check, expect = lib.C, argcheck.c_status, argcheck.expect
local contiguous, finish = out_.contiguous, out_.finish
local M = {}

local function forward(fn, log_softmax)
  return function(t, dim, opts)
    t = contiguous(expect(t, fn, 'input'))
    dim = argcheck.check_dim(t, dim, fn)
    local out = out_.option(opts, fn)
    local dst = out_.target_like(fn, out, t)
    check(C.fused_softmax_forward(dst, t, dim - 1, log_softmax))
    return finish(out, dst)
  end
end
M.softmax = forward('softmax', 0)
M.log_softmax = forward('log_softmax', 1)

local function backward(fn, log_softmax)
  return function(grad_output, output, dim, opts)
    output = contiguous(expect(output, fn, 'output'))
    grad_output = contiguous(expect(grad_output, fn, 'grad_output'))
    dim = argcheck.check_dim(output, dim, fn)
    local d = out_.option(opts, fn)
    local dst = out_.target_like(fn, d, output)
    check(C.fused_softmax_backward(dst, grad_output, output, dim - 1, log_softmax))
    return finish(d, dst)
  end
end
M.softmax_backward = backward('softmax_backward', 0)
M.log_softmax_backward = backward('log_softmax_backward', 1)

local function expect_keepdim(keepdim, fn)
  if keepdim ~= nil and type(keepdim) ~= 'boolean' then
    blame(string.format("%s: argument 'keepdim' expected a boolean, got %s", fn,
                        argcheck.type_name(keepdim)))
  end
  return keepdim == true
end

-- t's shape without dim (or with dim of size 1 where keepdim, or t is 1-D), as a list.
local function reduced_shape(t, dim, keepdim)
  local shape = t:shape()
  if keepdim or t.ndim == 1 then shape[dim] = 1 else table.remove(shape, dim) end
  return shape
end

-- t (logsumexp's output or its gradient: input's dtype and device, logsumexp's shape with dim
-- kept or not) viewed with dim kept.
local function kept_like(fn, arg, t, input, dim)
  argcheck.expect_like(t, input, fn, arg, 'input')
  local kept, dropped = reduced_shape(input, dim, true), reduced_shape(input, dim, false)
  local shape = table.concat(t:shape(), ', ')
  if shape ~= table.concat(kept, ', ') and shape ~= table.concat(dropped, ', ') then
    blame(string.format("%s: argument '%s' expected logsumexp's shape [%s] or [%s], got [%s]", fn,
                        arg, table.concat(kept, ', '), table.concat(dropped, ', '), shape))
  end
  return t:contiguous():view(kept)
end

local sizes = out_.sizes()
function M.logsumexp(t, dim, keepdim, opts)
  local fn = 'logsumexp'
  t = contiguous(expect(t, fn, 'input'))
  dim = argcheck.check_dim(t, dim, fn)
  local shape = reduced_shape(t, dim, expect_keepdim(keepdim, fn))
  for d = 1, #shape do sizes[d - 1] = shape[d] end
  local out = out_.option(opts, fn)
  local dst = out_.target(fn, out, #shape, sizes, t.scalar_type, t.device_type)
  local kept = t:shape()
  kept[dim] = 1
  check(C.fused_logsumexp_dim(dst:view(kept), t, dim - 1))
  return finish(out, dst)
end

function M.logsumexp_backward(grad_output, input, output, dim, keepdim, opts)
  local fn = 'logsumexp_backward'
  expect(grad_output, fn, 'grad_output')
  expect(input, fn, 'input')
  expect(output, fn, 'output')
  dim = argcheck.check_dim(input, dim, fn)
  expect_keepdim(keepdim, fn)
  local out = out_.option(opts, fn)
  local y, g = kept_like(fn, 'output', output, input, dim), kept_like(fn, 'grad_output', grad_output, input, dim)
  local dst = out_.target_like(fn, out, input)
  pointwise.sub(input, y, { out = dst })
  return finish(out, dst:exp_():mul_(g))
end

return M
