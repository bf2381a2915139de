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
for _, f in ipairs({ 'sigmoid', 'tanh', 'exp', 'log', 'softplus', 'abs', 'sqrt', 'elu', 'relu' }) do
  define_function(f, f, 1)
end
define_function('min', 'min', 2)
define_function('max', 'max', 2)

local FUNCTIONS = 'define, source, sigmoid, tanh, relu, elu, exp, log, softplus, abs, sqrt, min, max'
return setmetatable(M, {
  __index = function(_, k)
    error(string.format("fused.cell has no '%s' (it has %s)", tostring(k), FUNCTIONS), 2)
  end,
})
