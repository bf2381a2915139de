-- fused.gradcheck(fn, inputs, opts): checks a Function-style op's analytic backward against
-- central differences, in float64.
--
--   local ok, worst = fused.gradcheck({ forward = f, backward = g }, { x, W, b, h, c })
--
-- f(inputs...) returns its output tensors, then optionally a ctx (the first value that is not a
-- tensor); g(ctx, grad_outputs...) returns one gradient per input, in order (nil for an input
-- that is not differentiated). The loss is L = Σ_k <output_k, r_k> with fixed random r_k, so
-- the analytic gradients are g(ctx, r_1, ...) and each numeric one is
-- (L(input + eps) - L(input - eps)) / 2 eps, one element at a time.
--
-- opts: eps (1e-6), atol (1e-5), rtol (1e-3): an element passes when
-- |numeric - analytic| <= atol + rtol |numeric|; wrt, the list of input positions to check
-- (default: every tensor input). Inputs are copied to float64 on their device; they are not
-- changed. Returns ok and the worst element: { input =, index = {...}, numeric =, analytic =,
-- error =, message = }, where error is |numeric - analytic| - rtol |numeric| (<= atol passes).
local ffi = require 'ffi'
local options = require 'fused.options'
local argcheck = require 'fused.check'
local factory = require 'fused.factory'

local is_tensor = argcheck.is_tensor

-- The values of a CPU float64 contiguous tensor.
local function values(t) return ffi.cast('double*', t.data) end

local function host_double(t) return t:to('float64'):to('cpu'):contiguous() end

local function index_of(t, flat) -- 1-based flat index -> list of 1-based indices
  local idx, rest = {}, flat - 1
  for d = t.ndim, 1, -1 do
    local size = tonumber(t.sizes[d - 1])
    idx[d] = rest % size + 1
    rest = math.floor(rest / size)
  end
  return idx
end

local function split(...) -- outputs, then ctx: the first value that is not a tensor
  local outputs, n = {}, select('#', ...)
  for i = 1, n do
    local v = select(i, ...)
    if not is_tensor(v) then return outputs, v end
    outputs[i] = v
  end
  return outputs, nil
end

local function gradcheck(fn, inputs, opts)
  if type(fn) ~= 'table' or type(fn.forward) ~= 'function' or type(fn.backward) ~= 'function' then
    error("gradcheck: argument 'fn' expected a table with forward and backward functions, got "
          .. type(fn), 2)
  end
  local n = type(inputs) == 'table' and argcheck.sequence_length(inputs)
  if not n then
    error("gradcheck: argument 'inputs' expected a list of inputs, got "
          .. (type(inputs) == 'table' and argcheck.show_list(inputs) or argcheck.type_name(inputs)), 2)
  end
  opts = options.check(opts, 'gradcheck', { 'atol', 'eps', 'rtol', 'wrt' })
  local function number(k, default, positive)
    local v = opts[k] == nil and default or opts[k]
    if type(v) ~= 'number' or not (v < math.huge and (v > 0 or v == 0 and not positive)) then
      error(string.format("gradcheck: option '%s' expected a finite number %s 0, got %s", k,
                          positive and '>' or '>=', tostring(v)), 3)
    end
    return v
  end
  local eps, atol, rtol = number('eps', 1e-6, true), number('atol', 1e-5), number('rtol', 1e-3)

  -- Host float64 copies are perturbed; the op sees them on the input's own device.
  local host, device = {}, {}
  for i = 1, n do
    if is_tensor(inputs[i]) then
      host[i] = host_double(inputs[i]):clone()
      device[i] = inputs[i].device
    end
  end
  local function call_forward()
    local args = {}
    for i = 1, n do args[i] = host[i] and host[i]:to(device[i]) or inputs[i] end
    return split(fn.forward(unpack(args, 1, n)))
  end

  local outputs, ctx = call_forward()
  if #outputs == 0 then error("gradcheck: fn.forward returned no tensors", 2) end
  local weights, weight_host = {}, {}
  for k, out in ipairs(outputs) do
    weight_host[k] = factory.randn(out:shape(), { dtype = 'float64' })
    weights[k] = weight_host[k]:to(out.device)
  end
  local function loss(outs)
    local sum = 0
    for k, out in ipairs(outs) do
      sum = sum + (host_double(out) * weight_host[k]):sum()
    end
    return sum
  end

  local analytic = { fn.backward(ctx, unpack(weights)) }
  local wrt = opts.wrt
  if wrt == nil then
    wrt = {}
    for i = 1, n do if host[i] then wrt[#wrt + 1] = i end end
  elseif type(wrt) ~= 'table' or not argcheck.sequence_length(wrt) then
    error("gradcheck: option 'wrt' expected a list of input positions, got "
          .. (type(wrt) == 'table' and argcheck.show_list(wrt) or argcheck.type_name(wrt)), 2)
  end

  local worst = { error = -math.huge }
  for _, i in ipairs(wrt) do
    if not host[i] then
      error(string.format("gradcheck: option 'wrt': input %s is not a tensor", tostring(i)), 2)
    end
    if not is_tensor(analytic[i]) then
      error(string.format("gradcheck: fn.backward returned no gradient for input %d", i), 2)
    end
    -- Pointers into tensors that the tables analytic and host keep alive.
    analytic[i] = host_double(analytic[i])
    local a, x = values(analytic[i]), values(host[i])
    for e = 0, host[i]:numel() - 1 do
      local saved = x[e]
      x[e] = saved + eps
      local plus = loss((call_forward()))
      x[e] = saved - eps
      local minus = loss((call_forward()))
      x[e] = saved
      local numeric = (plus - minus) / (2 * eps)
      local err = math.abs(numeric - a[e]) - rtol * math.abs(numeric)
      if err > worst.error then
        worst = { input = i, index = index_of(host[i], e + 1), numeric = numeric,
                  analytic = a[e], error = err }
      end
    end
  end
  local ok = worst.error <= atol
  if worst.input then
    worst.message = string.format('%s: worst at input %d [%s]: numeric %.10g, analytic %.10g '
                                  .. '(|diff| - rtol|numeric| = %.3g, atol %.3g)',
                                  ok and 'ok' or 'mismatch', worst.input,
                                  table.concat(worst.index, ', '), worst.numeric, worst.analytic,
                                  worst.error, atol)
  end
  return ok, worst
end

return gradcheck
