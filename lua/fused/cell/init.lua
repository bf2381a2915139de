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

local function apply(fname, op, args, ...)
  local g
  for i = 1, select('#', ...) do
    local v = select(i, ...)
    if graph.is_node(v) then g = v.graph
    elseif type(v) ~= 'number' then
      error(string.format("fused.cell.%s: argument %d expected a symbol or a number, got %s",
                          fname, i, type(v)), 3)
    end
  end
  if not g then return graph.eval[op](unpack(args)) end
  return graph.op(g, op, unpack(args))
end

local function unary(fname, op)
  M[fname] = function(...)
    if select('#', ...) ~= 1 then
      error(string.format('fused.cell.%s: expected one argument, got %d', fname, select('#', ...)), 2)
    end
    return apply(fname, op, { ... }, ...)
  end
end
for _, f in ipairs({ 'sigmoid', 'tanh', 'exp', 'log', 'softplus', 'abs', 'sqrt', 'elu' }) do
  unary(f, f)
end
-- relu, min and max choose between their arguments: one select_lt each
function M.relu(x) return apply('relu', 'select_lt', { 0, x, x, 0 }, x) end
function M.min(a, b) return apply('min', 'select_lt', { a, b, a, b }, a, b) end
function M.max(a, b) return apply('max', 'select_lt', { b, a, a, b }, a, b) end

local FUNCTIONS = 'define, source, sigmoid, tanh, relu, elu, exp, log, softplus, abs, sqrt, min, max'
return setmetatable(M, {
  __index = function(_, k)
    error(string.format("fused.cell has no '%s' (it has %s)", tostring(k), FUNCTIONS), 2)
  end,
})
