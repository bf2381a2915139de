-- fused.cell: recurrent cells from their equations (docs/extending.md).
--
--   local F = fused.cell
--   local janet = F.define{name = 'janet', gates = 2, state = 'h', step = function(gx, gh, h)
--     local f = F.sigmoid(gx[1] + gh[1])
--     return f * h + (1 - f) * F.tanh(gx[2] + gh[2])
--   end}
--   fused.nn.RNN(32, 128, {cell = janet}); print(F.source(janet))
--   fused.nn.RNN(32, 128, {cell = janet, device = 'cuda'})   -- the same steps on CUDA
--
-- The functions below take symbols (inside a step) or numbers.
local graph = require 'fused.cell.graph'

local M = {}

M.define = require 'fused.cell.define'

-- The generated C of a defined cell: the one text compiled for both devices, as C for the
-- CPU and as CUDA (one element a thread, c/fused_cell_cuda.h) for the device.
function M.source(cell)
  if type(cell) ~= 'table' or type(cell.source) ~= 'string' then
    error(string.format("fused.cell.source: argument 'cell' expected a cell from "
                        .. "fused.cell.define, got %s", type(cell)), 2)
  end
  return cell.source
end

-- F.fname(...) of op: exactly arity arguments, symbols of the running step or numbers (then
-- a number).
local function define_function(fname, op, arity)
  local words = { 'one argument', 'two arguments' }
  M[fname] = function(...)
    local n = select('#', ...)
    if n ~= arity then
      error(string.format('fused.cell.%s: expected %s, got %d', fname, words[arity], n), 2)
    end
    local args, g = { ... }, nil
    for i = 1, n do
      local v = args[i]
      if graph.is_node(v) then g = graph.graph_of(v, 2)
      elseif type(v) ~= 'number' then
        error(string.format("fused.cell.%s: argument %d expected a symbol or a number, got %s",
                            fname, i, type(v)), 2)
      end
    end
    if not g then return graph.eval[op](unpack(args)) end
    return graph.op(g, op, unpack(args))
  end
end
for _, f in ipairs({ 'sigmoid', 'tanh', 'exp', 'log', 'softplus', 'abs', 'sqrt', 'elu', 'relu',
                    'sin', 'cos' }) do
  define_function(f, f, 1)
end
define_function('min', 'min', 2)
define_function('max', 'max', 2)
-- F.stop_gradient(x): x forward, and no gradient reaches x through it
define_function('stop_gradient', 'stop', 1)
-- PyTorch's logsigmoid, min(x, 0) - log1p(exp(-|x|)): -softplus(-x) is that value exactly, and
-- its derivative, sigmoid(-x), follows
function M.logsigmoid(...)
  local n = select('#', ...)
  if n ~= 1 then error(string.format('fused.cell.logsigmoid: expected one argument, got %d', n), 2) end
  local x = ...
  if not graph.is_node(x) and type(x) ~= 'number' then
    error(string.format('fused.cell.logsigmoid: argument 1 expected a symbol or a number, got %s',
                        type(x)), 2)
  end
  return -M.softplus(-x)
end

-- The comparisons: F.where's conditions (a comparison of numbers is a boolean). gt and ge are
-- lt and le with the sides swapped, the same for every value (NaN compares false either way).
local function comparison(fname, op, swap)
  M[fname] = function(...)
    local n = select('#', ...)
    if n ~= 2 then error(string.format('fused.cell.%s: expected two arguments, got %d', fname, n), 2) end
    local a, b = ...
    local args = { a, b }
    for i = 1, 2 do
      local v = args[i]
      if graph.is_node(v) then graph.graph_of(v, 2)
      elseif type(v) ~= 'number' then
        error(string.format("fused.cell.%s: argument %d expected a symbol or a number, got %s",
                            fname, i, graph.is_condition(v) and 'a comparison' or type(v)), 2)
      end
    end
    if swap then a, b = b, a end
    if type(a) == 'number' and type(b) == 'number' then
      return graph.eval[op](a, b, true, false)
    end
    return setmetatable({ op = op, a = a, b = b }, graph.Condition)
  end
end
comparison('lt', 'select_lt')
comparison('le', 'select_le')
comparison('gt', 'select_lt', true)
comparison('ge', 'select_le', true)
comparison('eq', 'select_eq')

-- F.where(cond, a, b): a where cond holds, else b, element by element; cond a comparison.
function M.where(...)
  local n = select('#', ...)
  if n ~= 3 then error(string.format('fused.cell.where: expected three arguments, got %d', n), 2) end
  local cond, a, b = ...
  if type(cond) ~= 'boolean' and not graph.is_condition(cond) then
    error(string.format("fused.cell.where: argument 'cond' expected a comparison (F.lt, F.le, "
                        .. 'F.gt, F.ge, F.eq), got %s', graph.is_node(cond)
                        and 'a symbol (not a condition: compare it, e.g. F.gt(x, 0))' or type(cond)), 2)
  end
  local g, args = nil, { a, b }
  for i = 1, 2 do
    local v = args[i]
    if graph.is_node(v) then g = graph.graph_of(v, 2)
    elseif type(v) ~= 'number' then
      error(string.format("fused.cell.where: argument %d expected a symbol or a number, got %s",
                          i + 1, graph.is_condition(v) and 'a comparison' or type(v)), 2)
    end
  end
  if type(cond) == 'boolean' then if cond then return a end return b end
  for _, v in ipairs({ cond.a, cond.b }) do if graph.is_node(v) then g = graph.graph_of(v, 2) end end
  if not g then return graph.eval[cond.op](cond.a, cond.b, a, b) end
  return graph.op(g, cond.op, cond.a, cond.b, a, b)
end

local FUNCTIONS = 'define, source, sigmoid, tanh, relu, elu, exp, log, softplus, logsigmoid, '
                  .. 'abs, sqrt, sin, cos, min, max, stop_gradient, lt, le, gt, ge, eq, where'
return setmetatable(M, {
  __index = function(_, k)
    error(string.format("fused.cell has no '%s' (it has %s)", tostring(k), FUNCTIONS), 2)
  end,
})
