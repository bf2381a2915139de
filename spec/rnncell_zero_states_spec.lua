-- A cell module called with no state starts from zeros, as PyTorch's cell(x) does (hx = None):
-- LSTMCell, GRUCell and nn.RNNCell over defined cells of 2 and 4 states (peephole LSTM, sLSTM)
-- give forward(x) and its backward equal to the bit to those of forward(x, zeros, ...), on the
-- CPU and the emulated CUDA device; one state given without the others is still an error.
local helper = require 'spec.helper'
local fused = helper.fused
local ref = require 'spec.cell_reference'

local cache = os.tmpname()
local B, I, H = 3, 5, 4

-- The modules and how many states each takes.
local function modules()
  local list = {
    { 'LSTMCell', function(o) return fused.nn.LSTMCell(I, H, o) end, 2 },
    { 'GRUCell', function(o) return fused.nn.GRUCell(I, H, o) end, 1 },
  }
  for _, file in ipairs({ 'peephole_lstm', 'slstm' }) do
    local spec = fused.cell.define(ref.example(file, cache .. '.d'))
    list[#list + 1] = { 'RNNCell(' .. file .. ')', function(o)
      o.cell = spec
      return fused.nn.RNNCell(I, H, o)
    end, #spec.states }
  end
  return list
end

-- forward and backward of m from states (nil: none given): every result and gradient.
local function run(m, x, states, n)
  m:zero_grad()
  local new = { m:forward(x, unpack(states or {}, 1, n)) }
  local grads = {}
  for k = 1, n do grads[k] = new[k]:clone():fill_(1) end
  local got = { m:backward(unpack(grads, 1, n)) }
  for k = 1, n do got[#got + 1] = new[k] end
  local names = {}
  for name in pairs(m.grad) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do got[#got + 1] = m.grad[name] end
  return got
end

describe('a cell module with no state', function()
  teardown(function() os.execute('rm -rf ' .. cache .. '.d'); os.remove(cache) end)

  for _, device in ipairs({ 'cpu', 'cuda' }) do
    local test = device == 'cuda' and helper.gpu_it or it
    test('starts from zeros, as PyTorch\'s cell(x), on ' .. device, function()
      for _, m in ipairs(modules()) do
        local name, make, n = m[1], m[2], m[3]
        fused.manual_seed(1)
        local cell = make({ dtype = 'float64', device = device })
        local x = fused.randn({ B, I }, { dtype = 'float64', device = device })
        local zeros = {}
        for k = 1, n do zeros[k] = fused.zeros({ B, H }, { dtype = 'float64', device = device }) end
        local given, none = run(cell, x, zeros, n), run(cell, x, nil, n)
        assert.are.equal(#given, #none, name)
        for k = 1, #given do
          assert.is_true(helper.bytes(given[k]) == helper.bytes(none[k]), name .. ' result ' .. k)
        end
      end
    end)
  end

  it('refuses one state given without the other', function()
    local cell = fused.nn.LSTMCell(I, H, { dtype = 'float64' })
    helper.assert_error(function() cell:forward(fused.randn({ B, I }, { dtype = 'float64' }),
                                                fused.zeros({ B, H }, { dtype = 'float64' })) end,
                        "LSTMCell:forward: argument 'c' expected a tensor, got nil")
  end)
end)
