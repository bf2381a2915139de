-- Torch7's nngraph inside `fused th` (require 'nngraph'): calling a module on nodes builds a
-- graph (nn.Identity()(), nn.Linear(4, 3)(x), nn.CAddTable()({a, b}), node - module), and
-- nn.gModule(inputs, outputs) runs it as one module (lua/fused/th/nngraph/).
local class = require 'fused.th.class'
local nn = require 'fused.th.nn'

local nngraph = {}
require('fused.th.nngraph.Node')(nngraph)
require('fused.th.nngraph.gModule')(nngraph)

local Module = class.metatable('nn.Module')

-- module(node), module({node, ...}) or module() (a node with no inputs: an input of the graph).
function Module:__call__(...)
  local n, input = select('#', ...), ...
  if n > 1 then error('nngraph: use {input1, input2} to pass several inputs to a module', 2) end
  if n == 1 and input == nil then error('nngraph: expected a node as the input, got nil', 2) end
  if type(input) == 'table' and class.typename(input) == nil and next(input) == nil then
    error('nngraph: cannot pass an empty table of inputs (leave the parentheses empty for none)', 2)
  end
  local inputs = (n == 0 and {}) or (class.typename(input) == 'nngraph.Node' and { input }) or input
  for i, node in ipairs(inputs) do
    if class.typename(node) ~= 'nngraph.Node' then
      error(string.format('nngraph: input %d expected a node, got %s', i, class.typename(node) or type(node)), 2)
    end
  end
  if #inputs ~= (type(inputs) == 'table' and table.maxn(inputs) or 0) then
    error('nngraph: the table of input nodes has holes (a nil node)', 2)
  end
  return nngraph.Node({ module = self }, inputs)
end

-- -module is module() and a - b is b(a): h = -nn.Linear(2, 3) - nn.Tanh().
function Module:__unm__() return self() end
function Module:__sub__(next_module) return next_module(self) end

-- Accepted for Torch7 programs that call it; names the nodes for graph drawing only.
function nngraph.annotateNodes() end

rawset(_G, 'nngraph', nngraph)
return nngraph
