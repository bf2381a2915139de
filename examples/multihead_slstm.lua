-- A multi-head sLSTM (xLSTM's, examples/cells/slstm.lua) on the adding problem
-- (fused.data.adding): nn.RNN over the defined cell with heads = 4, so that its recurrent
-- matrix is block-diagonal over 4 heads of H/4 units (weight_hh_l0 stores its blocks, 4·H x
-- H/4: docs/cells.md, Heads) and each head's product costs 1/4 of the dense one's. T = 30,
-- hidden 32, 2 layers, Adam. Predicting 1 always scores MSE 1/6 = 0.167, the task's baseline;
-- the held-out MSE is printed every 100 steps.
--   luajit examples/multihead_slstm.lua [steps]     (from a checkout after `make`)
-- The same from the training script: luajit examples/train.lua --cell examples/cells/slstm.lua --heads 4
local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
dofile(here .. 'checkout.lua')
local fused = require 'fused'
local nn = fused.nn

local STEPS, T, B, H, HEADS = tonumber(arg and arg[1]) or 600, 30, 64, 32, 4

local slstm = fused.cell.define(dofile(here .. 'cells/slstm.lua')(fused.cell))
fused.manual_seed(1)
local task = require('fused.data.adding').new { seq_len = T, batch = B, seed = 1, heldout = 500,
                                                dtype = 'float32' }
local rnn = nn.RNN(2, H, { cell = slstm, heads = HEADS, num_layers = 2 })
local head = nn.Linear(H, 1)
print(string.format('weight_hh_l0: %s (4·H x H/heads)', table.concat(rnn.weight_hh_l0:shape(), ' x ')))
local params, grads = {}, {}
for _, m in ipairs({ rnn, head }) do
  local p, g = m:parameters()
  for i = 1, #p do params[#params + 1], grads[#grads + 1] = p[i], g[i] end
end
local opt = fused.optim.Adam(params, grads, { lr = 1e-2 })
local criterion = nn.MSELoss()
local d_hs, d_hn = fused.zeros({ T, B, H }), fused.zeros({ 2, B, H })

-- The prediction from the last layer's final h (h_n is 2 x B x H; c_n, n_n, m_n follow it).
local function predict(xs) return head:forward(select(2, rnn:forward(xs)):select(1, 2)) end

local baseline, mse = task.baseline, nil
for step = 1, STEPS do
  for _, g in ipairs(grads) do g:zero_() end
  local xs, y = task:batch(step)
  local loss = criterion:forward(predict(xs), y)
  d_hn:select(1, 2):copy_(head:backward(criterion:backward(head.buffers.output, y)))
  rnn:backward(d_hs, d_hn)
  opt:step()
  if step % 100 == 0 or step == STEPS then
    local hx, hy = task:heldout()
    mse = criterion:forward(predict(hx), hy)
    print(string.format('step %4d  train MSE %.4f  held-out MSE %.4f  (baseline %.4f)', step, loss,
                        mse, baseline))
  end
end
print(mse < baseline and 'beats the baseline' or 'does not beat the baseline yet')
