-- Tied parameters (decoder.weight = encoder.weight, as PyTorch's word language model ties its
-- embedding and its decoder): one gradient that both modules add into, listed and saved once,
-- loaded from PyTorch's state dict that names it under both keys; a tie made by plain field
-- assignment after construction holds whichever method runs first.
local helper = require 'spec.helper'
local fused = helper.fused
local nn = fused.nn
local close, err = helper.assert_close, helper.assert_error

local F64 = { dtype = 'float64' }
local V, E, B = 5, 3, 4

local LM = nn.Module:extend('LM')
function LM:__init()
  self.encoder = nn.Embedding(V, E, F64)
  self.decoder = nn.Linear(E, V, F64)
end
function LM:forward(tokens) return self.decoder:forward(self.encoder:forward(tokens)) end
function LM:backward(d_y) return self.encoder:backward(self.decoder:backward(d_y)) end

local tokens = { 2, 5, 2, 1 }

-- A model with the given weights, tied or not, and its gradients after one step on d_y.
local function model(w, b, tie)
  local m = LM()
  m.encoder.weight:copy_(w)
  m.decoder.weight:copy_(w)
  m.decoder.bias:copy_(b)
  if tie then m.decoder.weight = m.encoder.weight end
  return m
end

describe('tied parameters', function()
  fused.manual_seed(1)
  local w, b, d_y = fused.randn({ V, E }, F64), fused.randn({ V }, F64), fused.randn({ B, V }, F64)
  local untied = model(w, b, false)
  untied:forward(tokens)
  untied:backward(d_y)
  local want = untied.encoder.grad.weight + untied.decoder.grad.weight

  local firsts = {
    forward = function(m) m:forward(tokens) end,
    parameters = function(m) m:parameters() end,
    state_dict = function(m) m:state_dict() end,
    named_parameters = function(m) for _ in m:named_parameters() do end end,
    optimizer = function(m) m.opt = fused.optim.SGD(m:parameters()) end,
    ['zero_grad'] = function(m) m:zero_grad() end,
  }
  for name, first in pairs(firsts) do
    it('share one gradient, listed once, when ' .. name .. ' runs first after the tie', function()
      local m = model(w, b, true)
      first(m)
      m:zero_grad()
      m:forward(tokens)
      m:backward(d_y)
      assert.is_true(rawequal(m.encoder.grad.weight, m.decoder.grad.weight), 'one gradient tensor')
      close(m.encoder.grad.weight, want, 1e-15, 'the sum of both uses')
      local params, grads = m:parameters()
      assert.are.equal(2, #params, 'decoder.weight (= encoder.weight) and decoder.bias')
      assert.is_true(rawequal(grads[1], m.encoder.grad.weight))
      local keys = {}
      for k in pairs(m:state_dict()) do keys[#keys + 1] = k end
      table.sort(keys)
      assert.are.same({ 'decoder.bias', 'decoder.weight' }, keys)
    end)
  end

  it('tied between a forward and its backward: the backward adds into the one gradient', function()
    local m = model(w, b, false)
    m:forward(tokens)
    m.decoder.weight = m.encoder.weight
    m:backward(d_y)
    assert.is_true(rawequal(m.encoder.grad.weight, m.decoder.grad.weight))
    close(m.encoder.grad.weight, want, 1e-15, 'the sum of both uses')
  end)

  it('an optimizer from parameters() steps the tied weight once, by the summed gradient', function()
    local m = model(w, b, true)
    local params, grads = m:parameters()
    local opt = fused.optim.SGD(params, grads, { lr = 0.1 })
    m:forward(tokens)
    m:backward(d_y)
    opt:step()
    close(m.encoder.weight, w - want * 0.1, 1e-15, 'weight after one step')
    assert.is_true(rawequal(m.encoder.weight, m.decoder.weight))
  end)

  it("load from PyTorch's state dict (both keys), from fused's (one), and refuse two values", function()
    local m = model(w, b, true)
    local w2 = fused.randn({ V, E }, F64)
    m:load_state_dict({ ['encoder.weight'] = w2, ['decoder.weight'] = w2:clone(), ['decoder.bias'] = b })
    close(m.decoder.weight, w2, 0, 'both keys')
    m:load_state_dict({ ['decoder.weight'] = w, ['decoder.bias'] = b })
    close(m.encoder.weight, w, 0, "fused's one key")
    m:load_state_dict({ ['encoder.weight'] = w2, ['decoder.bias'] = b })
    close(m.decoder.weight, w2, 0, 'the other key alone')
    err(function() m:load_state_dict({ ['encoder.weight'] = w, ['decoder.weight'] = w2, ['decoder.bias'] = b }) end,
        "LM:load_state_dict: argument 'state_dict' does not fit the module: keys 'decoder.weight' and "
        .. "'encoder.weight' name one tied parameter and hold different values")
    close(m.decoder.weight, w2, 0, 'nothing copied on an error')
    err(function() m:load_state_dict({ ['decoder.bias'] = b }) end, "missing key 'decoder.weight'")
  end)

  it('saved once by fused.save, and loaded back', function()
    local m = model(w, b, true)
    local path = os.tmpname()
    fused.save(path, m:state_dict())
    local back = fused.load(path)
    os.remove(path)
    local n = 0
    for _ in pairs(back) do n = n + 1 end
    assert.are.equal(2, n)
    local fresh = model(b:view(V, 1):expand(V, E):contiguous(), b, true)
    fresh:load_state_dict(back)
    close(fresh.encoder.weight, w, 0, 'the tied weight')
  end)
end)
