-- Torch7's nngraph inside `fused th` (require 'nngraph'): calling a module on nodes builds a
-- graph (nn.Identity()(), nn.Linear(4, 3)(x), nn.CAddTable()({a, b}), node - module), and
-- nn.gModule(inputs, outputs) runs it as one module (lua/fused/th/nngraph/), with nngraph's
-- and the graph package's classes and fields, so that a gModule Torch7 saved loads and runs.
local class = require 'fused.th.class'
local nn = require 'fused.th.nn'

-- The graph package nngraph loaded (global, as it was): its classes and graph.dot.
local graph = rawget(_G, 'graph') or {}
require('fused.th.nngraph.graph')(graph)
graph.dot = require 'fused.th.nngraph.dot'
rawset(_G, 'graph', graph)

local nngraph = {}
require('fused.th.nngraph.Node')(nngraph)
require('fused.th.nngraph.gModule')(nngraph)
require('fused.th.nngraph.JustElement')(nngraph)

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
  if type(inputs) ~= 'table' or class.typename(inputs) then
    error('nngraph: expected a node or a table of nodes as the input, got ' .. (class.typename(input) or type(input)), 2)
  end
  for i = 1, table.maxn(inputs) do
    if class.typename(inputs[i]) ~= 'nngraph.Node' then
      error(string.format('nngraph: input %d expected a node, got %s', i, class.typename(inputs[i]) or type(inputs[i])), 2)
    end
  end
  local node = nngraph.Node({ module = self })
  for _, from in ipairs(inputs) do node:add(from, true) end
  return node
end

-- -module is module() and a - b is b(a): h = -nn.Linear(2, 3) - nn.Tanh().
function Module:__unm__() return self() end
function Module:__sub__(next_module) return next_module(self) end

-- Accepted for Torch7 programs that call them: nngraph named the nodes by their local
-- variables and drew a failing graph (the error here names the line that made the node).
function nngraph.annotateNodes() end
function nngraph.setDebug() end

rawset(_G, 'nngraph', nngraph)
return nngraph
