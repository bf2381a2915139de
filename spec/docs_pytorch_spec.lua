-- docs/pytorch.md's fused model runs as written: its lua block, fed a few random batches,
-- trains (the loss falls) and saves the state_dict under PyTorch's names.
local helper = require 'spec.helper'
local fused = helper.fused

local function block()
  local text = helper.read((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '../docs/pytorch.md')
  local code = text:match('fused %(`spec/docs_pytorch_spec.lua` runs this block%):%s*```lua\n(.-)```')
  assert(code, "docs/pytorch.md: no lua block after 'fused (`spec/docs_pytorch_spec.lua` runs this block):'")
  return code
end

describe('docs/pytorch.md', function()
  it('trains the ported model as written and saves it under PyTorch’s names', function()
    local path = os.tmpname()
    local code = block():gsub("'lm%.safetensors'", "'" .. path .. "'")
    fused.manual_seed(3)
    local function tokens(seed)
      local t = {}
      for b = 1, 4 do
        t[b] = {}
        for i = 1, 12 do t[b][i] = (seed * 31 + b * 7 + i * 13) % 65 + 1 end
      end
      return fused.LongTensor(t)
    end
    local x, y = tokens(1), tokens(2)
    local losses = {}
    local nn_loss = fused.nn.CrossEntropyLoss
    local env = setmetatable({ batches = function()
      local n = 0
      return function()
        n = n + 1
        if n <= 30 then return x, y end
      end
    end }, { __index = _G })
    -- Record the losses through the criterion the block builds.
    fused.nn.CrossEntropyLoss = function(...)
      local c = nn_loss(...)
      local forward = c.forward
      c.forward = function(self, ...)
        local l = forward(self, ...)
        losses[#losses + 1] = l
        return l
      end
      return c
    end
    local ok, err = pcall(setfenv(assert(loadstring(code, '=docs/pytorch.md')), env))
    fused.nn.CrossEntropyLoss = nn_loss
    assert(ok, err)
    assert.are.equal(30, #losses)
    assert(losses[30] < 0.5 * losses[1], string.format('loss %g -> %g', losses[1], losses[30]))
    local saved = fused.load(path)
    os.remove(path)
    assert.are.same({ 'embed.weight', 'head.bias', 'head.weight', 'lstm.bias_hh_l0', 'lstm.bias_hh_l1',
                      'lstm.bias_ih_l0', 'lstm.bias_ih_l1', 'lstm.weight_hh_l0', 'lstm.weight_hh_l1',
                      'lstm.weight_ih_l0', 'lstm.weight_ih_l1' }, helper.sorted_keys(saved))
  end)
end)
