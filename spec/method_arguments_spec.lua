-- The Tensor's own methods (properties, conversions, views: fused/tensor.lua, fused/shape.lua)
-- refuse an argument they do not take, as the ops do (spec/op_arguments_spec.lua): a PyTorch
-- or Torch7 habit such as t:size(1, 2), t:double(1) or t:view({3, 2}, 5) must not be dropped.
-- Each method is called once as it should be and once with one argument more. The list must
-- name every method of fixed arguments those files define: a new one without a row fails here.
local helper = require 'spec.helper'
local fused = helper.fused
local err = helper.assert_error

local x = fused.ones(2, 3) -- whole numbers: long() takes them
local EXTRA = 'one too many'

-- name = the arguments after the tensor of a call that works, every parameter given.
local calls = {
  dim = {}, numel = {}, nDimension = {}, nElement = {}, is_contiguous = {}, shape = {},
  stride = { 1 }, size = { 1 }, type = { 'fused.DoubleTensor' }, to = { 'float64', 'cpu' },
  float = {}, double = {}, long = {}, bool = {}, bfloat16 = {}, half = {}, cpu = {}, cuda = {},
  totable = {}, item = nil,
  narrow = { 1, 1, 1 }, select = { 1, 1 }, chunk = { 2, 1 }, unbind = { 1 }, transpose = { 1, 2 },
  t = {}, unsqueeze = { 1 }, squeeze = { 1 }, flatten = { 1, 2 }, split = { 1, 1 },
}

describe("the Tensor's own methods refuse an argument they do not take", function()
  it('the list names every method of fixed arguments', function()
    local fixed = { 'dim', 'numel', 'nDimension', 'nElement', 'is_contiguous', 'shape', 'stride',
                    'size', 'type', 'to', 'float', 'double', 'long', 'bool', 'bfloat16', 'half',
                    'cpu', 'cuda', 'totable', 'narrow', 'select', 'chunk', 'unbind', 'transpose',
                    't', 'unsqueeze', 'squeeze', 'flatten', 'split' }
    for _, name in ipairs(fixed) do assert.truthy(calls[name], 'no row for ' .. name) end
  end)

  for _, name in ipairs(helper.sorted_keys(calls)) do
    local test = name == 'cuda' and helper.gpu_it or it -- pending where CUDA is off
    test(name, function()
      local args = calls[name]
      local n = #args
      assert(pcall(x[name], x, unpack(args, 1, n)), name .. ' with its own arguments')
      local more = { unpack(args, 1, n) }
      more[n + 1] = EXTRA
      err(function() x[name](x, unpack(more, 1, n + 1)) end, name .. ': takes (',
          'got an extra argument ' .. (n + 2) .. ': the string "' .. EXTRA .. '"')
    end)
  end

  it('item, on a tensor of one element', function()
    local one = fused.ones(1)
    err(function() one:item(1) end, 'item: takes (t), got an extra argument 2: the number 1')
  end)

  it('the views of sizes or dims, given as numbers or as a list, refuse what follows a list', function()
    err(function() x:view({ 3, 2 }, 5) end, "view: argument 'shape' given as a list, got an extra argument 2 after it: the number 5")
    err(function() x:reshape({ 6 }, 1) end, "reshape: argument 'shape' given as a list, got an extra argument 2")
    err(function() x:permute({ 2, 1 }, 3) end, "permute: argument 'dims' given as a list, got an extra argument 2")
    err(function() x:expand({ 2, 3 }, 1) end, "expand: argument 'sizes' given as a list, got an extra argument 2")
    assert.are.same({ 3, 2 }, x:view(3, 2):shape())
    assert.are.same({ 3, 2 }, x:view({ 3, 2 }, nil):shape()) -- a trailing nil is left out, as Lua has it
    assert.are.same({ 3, 2 }, x:permute(2, 1):shape())
    assert.are.same({ 2, 2, 3 }, x:expand(2, 2, 3):shape())
  end)

  it("t:stride(d) is dim d's stride, as PyTorch's (it gave the whole list)", function()
    local y = fused.zeros(2, 3, 4)
    assert.are.equal(12, y:stride(1))
    assert.are.equal(1, y:stride(-1))
    assert.are.same({ 12, 4, 1 }, y:stride())
    err(function() y:stride(4) end, "stride: argument 'dim' expected a dim in 1..3, got 4")
  end)
end)
