-- Modules keep their outputs and scratch tensors and the optimizers update in place: a training
-- step with the shapes of the last makes no new storage. (That nn/ and optim/ reach the C
-- library only through the op layer is spec/layers_spec.lua's.)
local helper = require 'spec.helper'
local fused = helper.fused
local nn = fused.nn

local F64 = { dtype = 'float64' }
local T, B, I, H, V, K = 4, 3, 5, 6, 7, 4

-- Embedding -> LLTM -> LLTMCell over the last step -> Recurrent(LLTMCell) -> Linear, with an
-- MSE and a cross-entropy loss: one step of every module, forward and backward.
local function model()
  local m = {
    embed = nn.Embedding(V, I, F64), rnn = nn.LLTM(I, H, F64), cell = nn.LLTMCell(H, H, F64),
    rec = nn.Recurrent(nn.LLTMCell(I, H, F64)), head = nn.Linear(H, K, F64),
    mse = nn.MSELoss(), ce = nn.CrossEntropyLoss(),
  }
  m.tokens = fused.tensor({ { 1, 2, 3 }, { 4, 5, 6 }, { 7, 1, 2 }, { 3, 4, 5 } }, { dtype = 'int64' })
  m.targets = fused.tensor({ 1, 2, 3 }, { dtype = 'int64' })
  m.y = fused.randn({ B, K }, F64)
  m.zero_hs = fused.zeros({ T, B, H }, F64) -- only the last step gets a gradient
  m.params, m.grads = {}, {}
  for _, name in ipairs({ 'embed', 'rnn', 'cell', 'rec', 'head' }) do
    local p, g = m[name]:parameters()
    for i = 1, #p do m.params[#m.params + 1], m.grads[#m.grads + 1] = p[i], g[i] end
  end
  return m
end

local function step(m, opt)
  for _, g in ipairs(m.grads) do g:zero_() end
  local xs = m.embed:forward(m.tokens)
  local _, h_T, c_T = m.rnn:forward(xs)
  local h, c = m.cell:forward(h_T, h_T, c_T)
  local _, r_T = m.rec:forward(xs, h, c)
  local logits = m.head:forward(r_T)
  local loss = m.mse:forward(logits, m.y) + m.ce:forward(logits, m.targets)
  local d_rT = m.head:backward(m.mse:backward(logits, m.y):add_(m.ce:backward(logits, m.targets)))
  local d_xs_rec, d_h, d_c = m.rec:backward(m.zero_hs, d_rT)
  local _, d_hT, d_cT = m.cell:backward(d_h, d_c)
  local d_xs = m.rnn:backward(m.zero_hs, d_hT, d_cT)
  m.embed:backward(d_xs:add_(d_xs_rec))
  fused.optim.clip_grad_norm(m.grads, 1.0)
  opt:step()
  return loss
end

describe('a training step in steady state', function()
  local optimizers = {
    { 'SGD with momentum', function(p, g) return fused.optim.SGD(p, g, { lr = 0.01, momentum = 0.9 }) end },
    { 'RMSprop', function(p, g) return fused.optim.RMSprop(p, g, { lr = 0.01, momentum = 0.5 }) end },
    { 'Adam', function(p, g) return fused.optim.Adam(p, g, { lr = 0.01 }) end },
  }
  for _, o in ipairs(optimizers) do
    it('makes no new storage with ' .. o[1], function()
      local m = model()
      local opt = o[2](m.params, m.grads)
      for _ = 1, 3 do step(m, opt) end
      -- The counter, and the live bytes with the collector stopped: a storage made and dropped
      -- stays counted there whichever loaded copy of fused made it (busted reloads per file).
      collectgarbage()
      collectgarbage('stop')
      local before, bytes = fused.debug.allocations(), fused.C.fused_bytes_in_use(0)
      local loss
      for _ = 1, 5 do loss = step(m, opt) end
      local made, grown = fused.debug.allocations() - before, fused.C.fused_bytes_in_use(0) - bytes
      collectgarbage('restart')
      assert.is_true(loss == loss, 'the loss is a number')
      assert.are.equal(0, made, string.format('%d storages made in 5 steady steps', made))
      assert.are.equal(0, tonumber(grown), string.format('%d bytes made in 5 steady steps', tonumber(grown)))
    end)
  end

  it('counts the storages an op makes', function()
    local a = fused.ones({ 4 })
    local before = fused.debug.allocations()
    local _ = fused.add(a, a)
    assert.are.equal(1, fused.debug.allocations() - before)
  end)
end)
