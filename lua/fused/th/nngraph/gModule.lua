-- nn.gModule(inputs, outputs): the graph of nodes from the input nodes to the output nodes as
-- one module, built and run as nngraph's gmodule.lua (its fields too: fg and bg, the forward
-- and backward graphs, forwardnodes and backwardnodes, innode, outnode, nInputs, so that a
-- gModule Torch7 saved runs). Its input is one tensor (or table) for one input node, a table
-- of one per input node otherwise, and so its output. A node gets its one input's output, or
-- the table of several inputs' outputs in order; backward sums the gradients of a node whose
-- output feeds several.
local class = require 'fused.th.class'
local util = require 'fused.th.nn.util'
local nn = require 'fused.th.nn.namespace'

return function(nngraph)
  local gModule, parent = class.class('nn.gModule', 'nn.Container', nn)

  -- A table's count or a value's kind, for the errors.
  local function what(v)
    if type(v) == 'table' and not class.typename(v) then return 'a table of ' .. #v end
    return util.is_tensor(v) and 'a tensor' or class.typename(v) or type(v)
  end

  local function expect_nodes(list, arg)
    if type(list) ~= 'table' or class.typename(list) or #list == 0 then
      error(string.format("nn.gModule: argument '%s' expected a non-empty table of nodes, got %s", arg, what(list)), 4)
    end
    for i = 1, table.maxn(list) do
      if class.typename(list[i]) ~= 'nngraph.Node' then
        error(string.format('nn.gModule: %s[%d] expected a node (call a module on nodes: nn.Identity()()), got %s',
                            arg, i, what(list[i])), 4)
      end
    end
  end

  function gModule:__init(inputs, outputs)
    parent.__init(self)
    expect_nodes(inputs, 'inputs')
    expect_nodes(outputs, 'outputs')
    local outnode = nngraph.Node({ input = {} })
    for _, node in ipairs(outputs) do outnode:add(node, true) end
    local innode = nngraph.Node({ input = {} })
    if #inputs == 1 then
      if #inputs[1].children > 0 then error('nn.gModule: inputs[1] is a node with inputs of its own', 3) end
      inputs[1]:add(innode, true)
    else
      for i, node in ipairs(inputs) do
        if #node.children > 0 then error(string.format('nn.gModule: inputs[%d] is a node with inputs of its own', i), 3) end
      end
      local splits = { innode:split(#inputs) }
      for i, node in ipairs(inputs) do node:add(splits[i], true) end
    end
    self.bg = outnode:graph()
    local map
    self.fg, map = self.bg:reverse()
    for i, node in ipairs(inputs) do
      if not self.bg.nodes[node] then error(string.format('nn.gModule: inputs[%d] does not connect to any output', i), 3) end
    end
    for _, root in ipairs(self.fg:roots()) do
      if root ~= map[innode] then
        error('nn.gModule: the node declared at ' .. root.data.annotations._debugLabel
              .. ' has no inputs and is not one of the inputs', 3)
      end
    end
    self.innode, self.outnode, self.nInputs = map[innode], outnode, #inputs
    self.forwardnodes, self.backwardnodes = self.fg:topsort(), self.bg:topsort()
    for i, node in ipairs(self.forwardnodes) do
      local d = node.data
      if d.nSplitOutputs and d.nSplitOutputs ~= #node.children then
        error(string.format('nn.gModule: %d of split(%d) outputs from the node declared at %s are unused',
                            d.nSplitOutputs - #node.children, d.nSplitOutputs, d.annotations._debugLabel), 3)
      end
      for successor in pairs(d.reverseMap) do
        if not self.bg.nodes[successor] then
          error('nn.gModule: the node declared at ' .. successor.data.annotations._debugLabel
                .. ' does not connect to the outputs', 3)
        end
      end
      d.forwardNodeId = node.id
      if d.module then self.modules[#self.modules + 1] = d.module end
    end
  end

  -- A node's input: the one input's output, or the list of several (a module with none: {}).
  local function node_input(data)
    local input = data.input
    if input == nil and data.module then return {} end
    if #input == 1 then return input[1] end
    return input
  end

  function gModule:updateOutput(input)
    local n = self.nInputs
    if n <= 1 then
      input = { input }
    elseif type(input) ~= 'table' or class.typename(input) or #input ~= n then
      error(string.format('nn.gModule: expected a table of %d inputs, got %s', n, what(input)), 3)
    end
    for _, node in ipairs(self.forwardnodes) do node.data.input = nil end
    self.innode.data.input = { unpack(input, 1, n) }
    for _, node in ipairs(self.forwardnodes) do
      local d, output = node.data, nil
      if d.selectindex then
        output = d.input[1][d.selectindex]
      else
        output = node_input(d)
        if d.module then output = d.module:updateOutput(output) end
        if d.nSplitOutputs and (type(output) ~= 'table' or #output ~= d.nSplitOutputs) then
          error(string.format('nn.gModule: split(%d) of the node declared at %s cannot split %s', d.nSplitOutputs,
                              d.annotations._debugLabel, what(output)), 3)
        end
      end
      for _, child in ipairs(node.children) do
        child.data.input = child.data.input or {}
        child.data.input[child.data.mapindex[d]] = output
      end
    end
    self.output = self.outnode.data.input
    if #self.outnode.children == 1 then self.output = self.output[1] end
    return self.output
  end

  -- The sum of the gradients a node got (kept in gradOutputBuffer when several).
  local function total_gradient(data)
    local list = data.gradOutput
    if #list == 1 then return list[1] end
    local sum = list[1]
    for i = 2, #list do sum = util.add(sum, list[i]) end
    data.gradOutputBuffer = sum
    return sum
  end

  function gModule:updateGradInput(input, gradOutput)
    local outputs = #self.outnode.children
    if outputs > 1 and (type(gradOutput) ~= 'table' or class.typename(gradOutput) or #gradOutput ~= outputs) then
      error(string.format('nn.gModule: expected a table of %d gradOutputs, got %s', outputs, what(gradOutput)), 3)
    end
    for _, node in ipairs(self.backwardnodes) do node.data.gradOutput, node.data.gradOutputBuffer = nil, nil end
    self.outnode.data.gradOutput = { gradOutput }
    for _, node in ipairs(self.backwardnodes) do
      local d = node.data
      local g = total_gradient(d)
      if d.selectindex then
        local child = node.children[1].data
        child.gradOutput = child.gradOutput or { {} }
        child.gradOutput[1][d.selectindex] = g
      else
        local gradInput = d.module and d.module:updateGradInput(node_input(d), g) or g
        for _, child in ipairs(node.children) do
          child.data.gradOutput = child.data.gradOutput or {}
          local gi = #node.children == 1 and gradInput or gradInput[d.mapindex[child.data]]
          table.insert(child.data.gradOutput, gi)
        end
      end
    end
    self.gradInput = self.innode.data.gradOutput[1]
    return self.gradInput
  end

  function gModule:accGradParameters(input, gradOutput, scale)
    for _, node in ipairs(self.backwardnodes) do
      local d = node.data
      if d.module then
        local g = #d.gradOutput > 1 and d.gradOutputBuffer or d.gradOutput[1]
        d.module:accGradParameters(node_input(d), g, scale or 1)
      end
    end
  end

  -- Each module's own step by -lr times its gradient (StochasticGradient's update).
  function gModule:accUpdateGradParameters(input, gradOutput, lr)
    for _, node in ipairs(self.backwardnodes) do
      local d = node.data
      if d.module then
        local g = #d.gradOutput > 1 and d.gradOutputBuffer or d.gradOutput[1]
        d.module:accUpdateGradParameters(node_input(d), g, lr)
      end
    end
  end

  -- The nodes' inputs and gradients are the module's state too.
  function gModule:clearState()
    for _, node in ipairs(self.forwardnodes) do
      node.data.input, node.data.gradOutput, node.data.gradOutputBuffer = nil, nil, nil
    end
    return parent.clearState(self)
  end

  function gModule:__tostring__() return self.name or 'nn.gModule' end
end
