-- Modules kept in Lua lists and tables inside a module's fields (Torch7's tables of modules,
-- PyTorch's ModuleList and ModuleDict): children(), named_parameters() with PyTorch's names,
-- train(), clearState(), to(), and shared_clone, which clones them sharing parameters.
local helper = require 'spec.helper'
local fused = helper.fused
local nn = fused.nn
local close = helper.assert_close

local F64 = { dtype = 'float64' }

-- One Linear kept in a list, as a Torch7 model keeps its layers.
local Holder = nn.Module:extend('Holder')
function Holder:__init() self.layers = { nn.Linear(2, 2, { bias = false, dtype = 'float64' }) } end
function Holder:forward(x) return self.layers[1]:forward(x) end
function Holder:backward(d_y) return self.layers[1]:backward(d_y) end

-- Lists and tables at several depths, beside a plain field.
local Deep = nn.Module:extend('Deep')
function Deep:__init()
  self.head = nn.Linear(2, 1, F64)
  self.layers = { nn.Linear(2, 2, F64), nn.Dropout(0.5) }
  self.blocks = { enc = nn.Linear(2, 3, F64), stack = { nn.LayerNorm(2, F64) } }
  self.sizes = { 2, 3 } -- no modules: shared as it is
end

describe('modules in lists and tables', function()
  it('shared_clone clones them, sharing parameters: clones keep their own inputs', function()
    local m = Holder()
    m.layers[1].weight:fill_(0)
    local c1, c2 = m:shared_clone(), m:shared_clone()
    assert.is_false(rawequal(c1.layers[1], m.layers[1]))
    assert.is_false(rawequal(c1.layers, m.layers))
    assert.is_true(rawequal(c1.layers[1].weight, m.layers[1].weight))
    assert.is_true(rawequal(c1.layers[1].grad.weight, m.layers[1].grad.weight))
    c1:forward(fused.tensor({ { 1, 0 } }, F64))
    c2:forward(fused.tensor({ { 0, 1 } }, F64))
    c1:backward(fused.ones({ 1, 2 }, F64)) -- in the order of the forwards
    c2:backward(fused.ones({ 1, 2 }, F64))
    assert.are.same({ { 1, 1 }, { 1, 1 } }, m.layers[1].grad.weight:totable())
    assert.is_true(rawequal(m:shared_clone(c1), c1), 'an earlier clone is re-pointed')
    assert.is_false(rawequal(c1.layers[1], m.layers[1]))
  end)

  it("are children, named as PyTorch names a ModuleList's and a ModuleDict's", function()
    local m = Deep()
    local _, names = m:children()
    assert.are.same({ 'blocks.enc', 'blocks.stack.0', 'head', 'layers.0', 'layers.1' }, names)
    local params = {}
    for name in m:named_parameters() do params[#params + 1] = name end
    assert.are.same({ 'blocks.enc.weight', 'blocks.enc.bias', 'blocks.stack.0.weight', 'blocks.stack.0.bias',
                      'head.weight', 'head.bias', 'layers.0.weight', 'layers.0.bias' }, params)
    m:eval()
    assert.is_false(m.layers[2].training)
    assert.is_false(m.blocks.stack[1].training)
    m:to('float32')
    assert.are.equal('float32', m.blocks.stack[1].weight.dtype)
    m.layers[1]:forward(fused.ones({ 1, 2 }))
    m:clearState()
    helper.assert_error(function() m.layers[1]:backward(fused.ones({ 1, 2 })) end, 'no forward to go back through')
    local c = m:shared_clone()
    assert.is_false(rawequal(c.blocks.stack[1], m.blocks.stack[1]))
    assert.is_true(rawequal(c.blocks.stack[1].weight, m.blocks.stack[1].weight))
    assert.is_true(rawequal(c.sizes, m.sizes))
    local sd = m:state_dict()
    close(sd['blocks.stack.0.weight'], m.blocks.stack[1].weight, 0, 'state_dict names')
  end)

  -- A sparse matrix in a field (a graph's adjacency) is data, not a module: walking the fields
  -- asked it for 'parameters', and its __index raised (print(m) and m:parameters() failed).
  it('leave a sparse matrix in a field alone', function()
    local Graph = nn.Module:extend('GraphHolder')
    function Graph:__init()
      self.A = fused.sparse.from_dense(fused.eye(3, { dtype = 'float64' }))
      self.gc = nn.GraphConv(3, 2, { dtype = 'float64' })
    end
    local m = Graph()
    assert.are.equal(2, #(m:parameters()))
    assert.are.same({ m.gc }, m:children())
    assert.matches('%(gc%): fused.nn.GraphConv', tostring(m))
  end)
end)
