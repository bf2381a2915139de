-- fused.grad(f) (torch-autograd's grad): df(params, ...) runs f(params, ...) recorded and
-- returns the gradient of its value with respect to every tensor in params (a tensor or a
-- nested table of them; grads mirrors it, zeros where the value does not depend on one) and
-- the value, a number:
--   local df = fused.grad(function(p, x) return x:matmul(p.w):add(p.b):tanh():sum() end)
--   local grads, loss = df({ w = w, b = b }, x)       -- grads.w, grads.b
-- f returns a number or a one-element tensor (sum and mean of a recorded tensor give a 0-dim
-- tensor while recorded). The parameters of modules called in f that are not in params get
-- their gradients added into the modules' own (m.grad), as a module's backward adds them.
local argcheck = require 'fused.check'
local blame = require 'fused.blame'
local tape = require 'fused.autograd.tape'
local tensor = require 'fused.tensor'
local zeros_like = require('fused.autograd.rules.common').zeros_like

local is_tensor = argcheck.is_tensor

local function leaves(t, x, seen, path)
  if is_tensor(x) then t:leaf(x) return end
  if type(x) ~= 'table' or seen[x] then
    blame(string.format("fused.grad: argument 'params' expected a tensor or a table of tensors, got %s at %s",
                        argcheck.type_name(x), path))
  end
  seen[x] = true
  for k, v in pairs(x) do leaves(t, v, seen, path .. '.' .. tostring(k)) end
end

local function mirror(grads, x)
  if is_tensor(x) then return grads[x] or zeros_like(x) end
  local m = {}
  for k, v in pairs(x) do m[k] = mirror(grads, v) end
  return m
end

return function(f)
  if type(f) ~= 'function' and not (type(f) == 'table' and getmetatable(f) and getmetatable(f).__call) then
    blame("fused.grad: argument 'f' expected a function, got " .. argcheck.type_name(f))
  end
  return function(params, ...)
    local t = tape.new(true)
    leaves(t, params, {}, 'params')
    local value = t:run(f, params, ...)
    if type(value) == 'number' then return mirror({}, params), value end
    if not is_tensor(value) or value:numel() ~= 1 then
      blame(string.format('fused.grad: f returned %s; expected a number or a one-element tensor',
                          is_tensor(value) and 'a tensor of ' .. value:numel() .. ' elements'
                          or argcheck.type_name(value)))
    end
    local grads = t:backward({ [value] = tensor.empty_like(value):fill_(1) })
    return mirror(grads, params), value:item()
  end
end
