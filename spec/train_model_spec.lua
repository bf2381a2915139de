-- fused.train.model: the SequenceModel of the training tasks, its state_dict names, its LLTM's
-- shut input gates, its loss and held-out evaluation, and its dropout.
local helper = require 'spec.helper'
local fused = helper.fused
local SequenceModel = require 'fused.train.model'

local function task(name)
  return require('fused.data.' .. name).new({ seq_len = 3, batch = 2, seed = 1, heldout = 5,
                                              dtype = 'float64', device = 'cpu' })
end

local function model_for(t, dropout)
  fused.manual_seed(1)
  return SequenceModel(t, { cell = 'lltm', hidden_size = 4, embedding_dim = 3, dropout = dropout,
                            dtype = 'float64', device = 'cpu' })
end

describe('train.model', function()
  it('has an embedding for token inputs only, and PyTorch-style names', function()
    assert.are.same({ 'head.bias', 'head.weight', 'rnn.bias', 'rnn.weight' },
                    helper.sorted_keys(model_for(task('adding')):state_dict()))
    assert.are.same({ 'embed.weight', 'head.bias', 'head.weight', 'rnn.bias', 'rnn.weight' },
                    helper.sorted_keys(model_for(task('copy')):state_dict()))
  end)

  it('works out the shapes of its state_dict without building it, for every cell, task and depth', function()
    for _, name in ipairs({ 'adding', 'copy' }) do
      for _, cell in ipairs({ 'lltm', 'lstm', 'gru', 'mingru', 'sru' }) do
        if cell == 'mingru' or cell == 'sru' then -- linear cells: no recurrent weights
          cell = fused.cell.define(dofile('examples/cells/' .. cell .. '.lua')(fused.cell))
        end
        for layers = 1, 3 do
          local t, opts = task(name), { cell = cell, num_layers = layers, hidden_size = 5, embedding_dim = 3,
                                        dtype = 'float64', device = 'cpu' }
          local built = {}
          for key, p in pairs(SequenceModel(t, opts):state_dict()) do built[key] = p:shape() end
          local what = name .. ' ' .. (type(cell) == 'table' and cell.name or cell) .. ' ' .. layers
          assert.are.same(built, SequenceModel.shapes(t, opts), what)
        end
      end
    end
  end)

  it("starts the LLTM's input gates mostly shut (bias -3), the other gates as initialised", function()
    local bias = model_for(task('adding')).rnn.bias:totable()
    local bound = 1 / math.sqrt(4)
    for i = 1, 12 do
      local centre = i <= 4 and -3 or 0
      assert(math.abs(bias[i] - centre) <= bound, string.format('bias[%d] = %g', i, bias[i]))
    end
  end)

  it('adds gradients only when asked, and evaluates the mean held-out loss', function()
    local t = task('adding')
    local model = model_for(t)
    local xs, ys = t:batch(1)
    model:zeroGradParameters()
    local loss = model:loss(xs, ys, false)
    for _, g in ipairs(select(2, model:parameters())) do assert.are.equal(0, g:abs():sum()) end
    assert.are.equal(loss, model:loss(xs, ys, true))
    assert(model.rnn.grad.weight:abs():sum() > 0)
    local hx, hy = t:heldout()
    local want = model:loss(hx, hy, false) -- one chunk: evaluate's sum of len * loss, over n
    assert(math.abs(model:evaluate(t) - want) <= 1e-15 * want)
  end)

  it('drops out what the head reads in a loss with backward (training) only', function()
    for _, name in ipairs({ 'adding', 'copy' }) do -- the head on the last step, on every step
      local t = task(name)
      local plain, dropped = model_for(t), model_for(t, 0.5)
      local xs, ys = t:batch(1)
      assert.are.equal(plain:loss(xs, ys, false), dropped:loss(xs, ys, false), name)
      plain:zeroGradParameters()
      dropped:zeroGradParameters()
      assert.are_not.equal(plain:loss(xs, ys, true), dropped:loss(xs, ys, true), name)
      assert.are_not.same(plain.head.grad.weight:totable(), dropped.head.grad.weight:totable(), name)
      assert.are.equal(plain:evaluate(t), dropped:evaluate(t), name)
    end
  end)
end)
