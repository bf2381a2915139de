-- PyTorch's examples/word_language_model ported with a forward only (issue 36): Embedding, a
-- 2-layer LSTM, one Dropout called twice, the decoder's weight tied to the encoder's, NLLLoss
-- over log_softmax, clip_grad_norm, p -= lr grad. spec/golden/word_lm/make.py ran PyTorch's
-- model 20 steps in float64 from its own initial weights (train.lua here runs fused's the same
-- way); its `check` loaded fused's saved state_dict into PyTorch (checkpoint_check.json).
-- Dropout is p = 0 against PyTorch (the two generators draw different masks); the masks are
-- checked apart, against central differences with p = 0.5 and the same seed on every forward.
local helper = require 'spec.helper'
local fused = helper.fused
local nn = fused.nn

local dir = helper.golden .. '/word_lm/'
local word_lm = dofile(dir .. 'train.lua')

local function largest(a, b) return a:sub(b):abs():view(-1):max(1):item() end

describe('the word language model of PyTorch\'s examples, with a forward only', function()
  local ref = fused.load(dir .. 'reference.safetensors')
  local run = word_lm.train(dir)

  it('gives PyTorch\'s losses and gradient norms within 1e-12 over 20 steps', function()
    for step = 1, 20 do
      assert(math.abs(run.losses[step] - ref.losses[step]) <= 1e-12, 'loss, step ' .. step)
      assert(math.abs(run.norms[step] - ref.norms[step]) <= 1e-12, 'norm, step ' .. step)
    end
    local clipped = 0
    for step = 1, 20 do if ref.norms[step] > 0.25 then clipped = clipped + 1 end end
    assert(clipped > 0 and clipped < 20, 'clip_grad_norm clipped ' .. clipped .. ' of 20 steps')
  end)

  it('gives every gradient of PyTorch\'s within 1e-12 over 20 steps (the tied one once)', function()
    local names = 0
    for name, steps in pairs(run.grads) do
      names = names + 1
      for step = 1, 20 do
        local d = largest(steps[step], ref['grad.' .. name][step])
        assert(d <= 1e-12, string.format('%s, step %d: off by %g', name, step, d))
      end
    end
    assert.are.equal(10, names)
    assert.are.equal(10, #(run.model:parameters()))
  end)

  it('ends at PyTorch\'s parameters, and saves them under PyTorch\'s names', function()
    local sd = run.model:state_dict()
    for name, t in pairs(sd) do
      assert(largest(t, ref['final.' .. name]) <= 1e-12, name)
    end
    assert.is_nil(sd['encoder.weight']) -- tied: saved once, as decoder.weight
    local path = os.tmpname()
    fused.save(path, sd)
    local back = fused.load(path)
    os.remove(path)
    for name, t in pairs(sd) do assert.are.equal(0, largest(back[name], t)) end
  end)

  -- Dropout with p = 0.5 (the one module called twice and the LSTM's between its layers):
  -- each call's mask goes back through its own call.
  it('goes back through each Dropout call\'s own mask (central differences, p = 0.5)', function()
    local m = word_lm.Model(13, 8, 8, 2, 0.5)
    local x = fused.tensor({ { 1, 4, 13 }, { 7, 2, 2 }, { 5, 9, 11 } }, { dtype = 'int64' })
    local y = fused.tensor({ 4, 13, 7, 2, 2, 5, 9, 11, 3 }, { dtype = 'int64' })
    local h = fused.randn({ 2, 3, 8 }, { dtype = 'float64' })
    local criterion = nn.NLLLoss()
    local function loss()
      fused.manual_seed(3) -- the same masks on every forward
      local v = criterion:forward((m:forward(x, h, h)), y)
      m:clearState()
      return v
    end
    m:zero_grad()
    fused.manual_seed(3)
    local out = m:forward(x, h, h)
    criterion:forward(out, y)
    m:backward(criterion:backward(out, y))
    for name, p, g in m:named_parameters() do
      local flat, got = p:view(-1), g:view(-1)
      for i = 1, p:numel(), 7 do -- every 7th element: a spread over each parameter
        local v = flat[i]
        flat[i] = v + 1e-6
        local up = loss()
        flat[i] = v - 1e-6
        local down = loss()
        flat[i] = v
        local d = math.abs((up - down) / 2e-6 - got[i])
        assert(d < 1e-7, string.format('%s[%d]: off by %g', name, i, d))
      end
    end
  end)
end)
