-- Trains an RNN over the MGU, defined from its equations (examples/cells/mgu.lua, the cell of
-- mgu.c) by fused.cell.define, which compiles it on first run, on the adding problem (fused.data.adding): T = 30, hidden 32, Adam. Predicting 1 always scores MSE
-- 1/6 = 0.167, the task's baseline; the held-out MSE is printed every 100 steps.
--   luajit examples/custom_cell/train.lua [steps]     (from a checkout after `make`)
local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
dofile(here .. '../checkout.lua')
local fused = require 'fused'
local nn = fused.nn

local STEPS, T, B, H = tonumber(arg and arg[1]) or 600, 30, 64, 32

local mgu = fused.cell.define(dofile(here .. '../cells/mgu.lua')(fused.cell))
fused.manual_seed(1)
local task = require('fused.data.adding').new { seq_len = T, batch = B, seed = 1, heldout = 500,
                                                dtype = 'float32' }
local rnn, head = nn.RNN(2, H, { cell = mgu }), nn.Linear(H, 1)
local params, grads = {}, {}
for _, m in ipairs({ rnn, head }) do
  local p, g = m:parameters()
  for i = 1, #p do params[#params + 1], grads[#grads + 1] = p[i], g[i] end
end
local opt = fused.optim.Adam(params, grads, { lr = 1e-2 })
local criterion = nn.MSELoss()
local d_hs = fused.zeros({ T, B, H })

-- The prediction from the last state (h_n is 1 × n × H).
local function predict(xs) return head:forward(select(2, rnn:forward(xs)):select(1, 1)) end

local baseline, mse = task.baseline, nil
for step = 1, STEPS do
  for _, g in ipairs(grads) do g:zero_() end
  local xs, y = task:batch(step)
  local loss = criterion:forward(predict(xs), y)
  local d_h = head:backward(criterion:backward(head.buffers.output, y))
  rnn:backward(d_hs, d_h:view({ 1, B, H }))
  opt:step()
  if step % 100 == 0 or step == STEPS then
    local hx, hy = task:heldout()
    mse = criterion:forward(predict(hx), hy)
    print(string.format('step %4d  train MSE %.4f  held-out MSE %.4f  (baseline %.4f)', step, loss,
                        mse, baseline))
  end
end
print(mse < baseline and 'beats the baseline' or 'does not beat the baseline yet')
