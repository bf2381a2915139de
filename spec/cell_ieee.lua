-- The IEEE cases of fused.cell.define, for spec/cell_define_ieee_spec.lua (the CPU) and
-- spec/cell_define_cuda_spec.lua (the device): cells whose one step is a rule that folding
-- must not change, run on edge values through h and c (which reach the step exactly), and a
-- cell of every kink, with the gradients PyTorch's autograd gives.
local helper = require 'spec.helper'
local fused = helper.fused
local F = fused.cell
local Fn = fused.functional
local codegen = require 'fused.cell.codegen'

local M = {}

local inf, nan = math.huge, 0 / 0
M.edges = { 0, -0.0, 1, -1, 2.5, inf, -inf, nan, 5e-324 }

-- PyTorch's maximum and minimum: NaN on either side wins
local function max(a, b) if a ~= a or a > b then return a end return b end
local function min(a, b) if a ~= a or a < b then return a end return b end

-- Each cell: its step of h and c (state 'hc'), and the same pair over Lua numbers.
M.rules = {
  { name = 'ieee_mul_div', h = function(x) return x * 0 end, c = function(x) return 0 / x end },
  { name = 'ieee_sub_div', h = function(x) return x - x end, c = function(x) return x / x end },
  { name = 'ieee_add_sub', h = function(x) return x + 0 end, c = function(x) return 0 - x end },
  { name = 'ieee_neg_zero', h = function(x) return x / -0.0 end, c = function(x) return x * -0.0 end },
  { name = 'ieee_max_min', h = function(x) return F.max(x, 0) end,
    c = function(x) return F.min(x, 1) end,
    lua = { h = function(x) return max(x, 0) end, c = function(x) return min(x, 1) end } },
}
-- the Lua side run by the interpreter, which folds nothing
for _, r in ipairs(M.rules) do
  r.lua = r.lua or { h = r.h, c = r.c }
  jit.off(r.lua.h); jit.off(r.lua.c)
end

function M.define(rule, cache_dir)
  return F.define { name = rule.name, gates = 1, state = 'hc', cache_dir = cache_dir,
                    step = function(gx, gh, h, c) return rule.h(h), rule.c(c) end }
end

-- One step of cell from h0 = c0 = values (1 x n) with zero weights: h_n, c_n as Lua lists.
function M.run(cell, values, dtype, device)
  local n = #values
  local o = { dtype = dtype, device = device }
  local h0 = fused.tensor({ values }, { dtype = dtype }):to(device or 'cpu')
  local z = function(sizes) return fused.zeros(sizes, o) end
  local _, h_n, c_n = Fn.rnn_forward(cell, z({ 1, 1, 1 }), z({ n, 1 }), z({ n, n }), z({ n }),
                                     z({ n }), h0, h0:clone())
  local function list(t)
    t = t:cpu():to('float64')
    local r = {}
    for i = 1, n do r[i] = t[1][i] end
    return r
  end
  return list(h_n), list(c_n), list(h0)
end

-- a and b the same number: NaN for NaN, -0.0 for -0.0
function M.same(a, b)
  if a ~= a then return b ~= b end
  return a == b and 1 / a == 1 / b
end

-- The kinks: new h = |h| + 2 relu(h) + 4 max(h, 0) + 8 min(h, 0) and new c = max(h, c) +
-- 2 min(h, c), at h0 = {0, 1, -1}, c0 = {0, 2, -1}, seeds 1. PyTorch (derivatives.yaml):
-- abs, grad * sgn(x); relu, 0 where the result is <= 0; maximum and minimum, half to each
-- side at a tie. d_h0 = {0 + 0 + 2 + 4 + 0.5 + 1, 1 + 2 + 4 + 2, -1 + 8 + 0.5 + 1}.
M.kinks = {
  step = function(gx, gh, h, c)
    return F.abs(h) + 2 * F.relu(h) + 4 * F.max(h, 0) + 8 * F.min(h, 0),
           F.max(h, c) + 2 * F.min(h, c)
  end,
  h0 = { 0, 1, -1 }, c0 = { 0, 2, -1 },
  d_h0 = { 7.5, 9, 8.5 }, d_c0 = { 1.5, 1, 1.5 },
}

function M.kink_gradients(cell, dtype, device)
  local o = { dtype = dtype, device = device }
  local z = function(sizes) return fused.zeros(sizes, o) end
  local h0 = fused.tensor({ M.kinks.h0 }, { dtype = dtype }):to(device or 'cpu')
  local c0 = fused.tensor({ M.kinks.c0 }, { dtype = dtype }):to(device or 'cpu')
  local _, _, _, ctx = Fn.rnn_forward(cell, z({ 1, 1, 1 }), z({ 6, 1 }), z({ 6, 3 }), z({ 6 }),
                                      z({ 6 }), h0, c0)
  local ones = fused.ones({ 1, 3 }, o)
  local _, _, _, _, _, d_h0, d_c0 = Fn.rnn_backward(ctx, z({ 1, 1, 3 }), ones, ones)
  return d_h0:cpu():to('float64'), d_c0:cpu():to('float64')
end

-- Every kind of double: signed zeros, subnormals, the largest, infinities, NaN, integers
-- beyond 2^53, values that need 17 significant digits.
M.constants = { -0.0, 0.0, 5e-324, -2.2250738585072009e-308, 1.7976931348623157e308,
                -1.7976931348623157e308, math.huge, -math.huge, 0 / 0, 2 ^ 53 + 2, 2 ^ 63,
                -(2 ^ 70 + 2 ^ 20), 0.1, 1 / 3, 123456789012345678, -2.5, 1e-320 }

-- The C literal of each constant as the generated source has it.
function M.literals(source)
  local found = {}
  for _, v in ipairs(M.constants) do
    local text = codegen.number(v)
    assert(source:find('vsplat(' .. text .. ')', 1, true), text)
    found[#found + 1] = text
  end
  return found
end

-- The literals compiled as source (a .c, or a .cu: as CUDA) into an array, read back.
function M.compiled(texts, ext, cache)
  local name = 'constants_' .. ext
  local dir = cache .. '.src'
  os.execute('mkdir -p ' .. dir)
  local f = assert(io.open(dir .. '/' .. name .. '.' .. ext, 'wb'))
  local array = string.format('double %s[%d] = {%s};\n', name, #texts, table.concat(texts, ', '))
  if ext == 'cu' then array = 'extern "C" {\n' .. array .. '}\n' end
  f:write('#include <math.h>\n', array)
  f:close()
  local lib = fused.ext.load { name = name, sources = { dir .. '/' .. name .. '.' .. ext },
                               cache_dir = cache .. '.d',
                               cdef = string.format('double %s[%d];', name, #texts) }
  local values = {}
  for i = 1, #texts do values[i] = lib[name][i - 1] end
  return values
end

-- A cell whose step multiplies h by every constant.
function M.constants_cell(cache_dir)
  return F.define { name = 'constants', gates = 1, state = 'h', cache_dir = cache_dir,
    step = function(gx, gh, h)
      local sum = gx[1] + gh[1]
      for _, v in ipairs(M.constants) do sum = sum + h * v end
      return sum
    end }
end

return M
