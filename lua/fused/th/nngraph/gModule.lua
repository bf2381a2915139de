-- nn.gModule(inputs, outputs): the graph of nodes from the input nodes to the output nodes as
-- one module (nngraph's gmodule.lua). forward runs the nodes in an order where each comes
-- after its inputs; its input is one tensor (or table) for one input node, a table of one per
-- input node otherwise, and so its output. backward runs them in reverse, summing the
-- gradients of a node whose output feeds several. A node of one input node gets that
-- node's output; of several, the table of their outputs, in order.
local class = require 'fused.th.class'
local util = require 'fused.th.nn.util'
local nn = require 'fused.th.nn.namespace'

return function(nngraph)
  local gModule, parent = class.class('nn.gModule', 'nn.Container', nn)

  local function expect_nodes(list, what)
    if type(list) ~= 'table' or #list == 0 then
      error(string.format("nn.gModule: argument '%s' expected a non-empty table of nodes, got %s", what,
                          type(list)), 4)
    end
    for i, node in ipairs(list) do
      if class.typename(node) ~= 'nngraph.Node' then
        error(string.format("nn.gModule: %s[%d] expected a node (call a module on nodes: nn.Identity()()), got %s",
                            what, i, class.typename(node) or type(node)), 4)
      end
    end
  end

  function gModule:__init(inputs, outputs)
    parent.__init(self)
    expect_nodes(inputs, 'inputs')
    expect_nodes(outputs, 'outputs')
    self.inputnodes, self.outputnodes = inputs, outputs
    local order, done = {}, {}
    local function visit(node)
      if done[node] then return end
      done[node] = true
      for _, i in ipairs(node.inputs) do visit(i) end
      order[#order + 1] = node
    end
    for _, node in ipairs(outputs) do visit(node) end
    local input_index = {}
    for i, node in ipairs(inputs) do
      if #node.inputs > 0 then error(string.format('nn.gModule: inputs[%d] is a node with inputs of its own', i), 3) end
      if not done[node] then error(string.format('nn.gModule: inputs[%d] does not connect to any output', i), 3) end
      input_index[node] = i
    end
    local splits = {}
    for _, node in ipairs(order) do
      if #node.inputs == 0 and not input_index[node] and not node.data.module then
        error('nn.gModule: a node without a module nor inputs: ' .. tostring(node), 3)
      end
      if node.data.selectindex then splits[node.inputs[1]] = (splits[node.inputs[1]] or 0) + 1 end
    end
    for node, used in pairs(splits) do
      if used ~= node.data.nSplitOutputs then
        error(string.format('nn.gModule: %d of split(%d) outputs from the node declared at %s are unused',
                            node.data.nSplitOutputs - used, node.data.nSplitOutputs,
                            node.data.annotations._debugLabel or '?'), 3)
      end
    end
    for _, node in ipairs(order) do
      if node.data.module then self.modules[#self.modules + 1] = node.data.module end
    end
    self.forwardnodes, self.input_index = order, input_index
    self.nInputs = #inputs
  end

  -- The input node i's own input, or the outputs of the node's inputs.
  local function node_input(self, node, input)
    local i = self.input_index[node]
    if i then return self.nInputs == 1 and input or input[i] end
    if #node.inputs == 1 then return node.inputs[1].data.output end
    local list = {}
    for k, from in ipairs(node.inputs) do list[k] = from.data.output end
    return list
  end

  function gModule:updateOutput(input)
    if self.nInputs > 1 and (type(input) ~= 'table' or #input ~= self.nInputs) then
      error(string.format('nn.gModule: expected a table of %d inputs, got %s', self.nInputs,
                          type(input) == 'table' and #input or type(input)), 3)
    end
    for _, node in ipairs(self.forwardnodes) do
      local x = node_input(self, node, input)
      node.data.input = x
      if node.data.selectindex then
        if type(x) ~= 'table' then error('nn.gModule: split() of a node whose output is not a table', 3) end
        node.data.output = x[node.data.selectindex]
      elseif node.data.module then
        node.data.output = node.data.module:updateOutput(#node.inputs == 0 and not self.input_index[node] and {} or x)
      else
        node.data.output = x
      end
    end
    if #self.outputnodes == 1 then
      self.output = self.outputnodes[1].data.output
    else
      self.output = {}
      for i, node in ipairs(self.outputnodes) do self.output[i] = node.data.output end
    end
    return self.output
  end

  local function add_gradient(node, g)
    node.data.gradOutput = node.data.gradOutput == nil and g or util.add(node.data.gradOutput, g)
  end

  function gModule:updateGradInput(input, gradOutput)
    for _, node in ipairs(self.forwardnodes) do node.data.gradOutput = nil end
    if #self.outputnodes == 1 then
      add_gradient(self.outputnodes[1], gradOutput)
    else
      if type(gradOutput) ~= 'table' or #gradOutput ~= #self.outputnodes then
        error(string.format('nn.gModule: expected a table of %d gradOutputs, got %s', #self.outputnodes,
                            type(gradOutput) == 'table' and #gradOutput or type(gradOutput)), 3)
      end
      for i, node in ipairs(self.outputnodes) do add_gradient(node, gradOutput[i]) end
    end
    for k = #self.forwardnodes, 1, -1 do
      local node = self.forwardnodes[k]
      local g = node.data.gradOutput
      if node.data.selectindex then
        local from = node.inputs[1]
        from.data.gradOutput = from.data.gradOutput or {}
        local t = from.data.gradOutput
        t[node.data.selectindex] = t[node.data.selectindex] == nil and g or util.add(t[node.data.selectindex], g)
      else
        local gi = g
        if node.data.module then gi = node.data.module:updateGradInput(node.data.input, g) end
        node.data.gradInput = gi
        if #node.inputs == 1 then
          add_gradient(node.inputs[1], gi)
        else
          for i, from in ipairs(node.inputs) do add_gradient(from, gi[i]) end
        end
      end
    end
    if self.nInputs == 1 then
      self.gradInput = self.inputnodes[1].data.gradInput
    else
      self.gradInput = {}
      for i, node in ipairs(self.inputnodes) do self.gradInput[i] = node.data.gradInput end
    end
    return self.gradInput
  end

  function gModule:accGradParameters(input, gradOutput, scale)
    for _, node in ipairs(self.forwardnodes) do
      if node.data.module then node.data.module:accGradParameters(node.data.input, node.data.gradOutput, scale or 1) end
    end
  end

  -- The nodes' inputs and gradients are the module's state too.
  function gModule:clearState()
    for _, node in ipairs(self.forwardnodes) do
      node.data.input, node.data.output, node.data.gradOutput, node.data.gradInput = nil, nil, nil, nil
    end
    return parent.clearState(self)
  end

  function gModule:__tostring__() return self.name or 'nn.gModule' end

  return nn.gModule
end
