-- The LLTM on the GPU: the fused cell and sequence against the golden vectors, the fused cell
-- against the composed one on the GPU, gradcheck, mixed devices, determinism. Without a device
-- every test is pending with fused.cuda.why().
local helper = require 'spec.helper'
local fused = helper.fused
local close, err = helper.assert_close, helper.assert_error

local gpu_it = helper.gpu_it

-- The golden tensors of a case, on the GPU in dtype.
local function golden(dir, names, dtype)
  local g = {}
  for _, name in ipairs(names) do g[name] = helper.load_golden(dir, name, dtype):cuda() end
  return g
end
local CELL = { 'x', 'h', 'c', 'W', 'b', 'grad_h', 'grad_c', 'new_h', 'new_c', 'd_x', 'd_h', 'd_c',
               'd_W', 'd_b' }
local SEQ = { 'xs', 'h0', 'c0', 'W', 'b', 'r', 's', 'hs', 'c_T', 'd_xs', 'd_h0', 'd_c0', 'd_W',
              'd_b' }

-- A cell of the given class on the GPU holding W and b (both on the GPU).
local function cell_with(class, W, b)
  local H = W:size(1) / 3
  local cell = fused.nn[class](W:size(2) - H, H, { dtype = W.dtype }):cuda()
  cell.weight:copy(W)
  cell.bias:copy(b)
  return cell
end

describe('LLTM on the GPU', function()
  for _, dtype in ipairs({ 'float64', 'float32' }) do
    for _, case in ipairs({ 'tiny', 'odd', 'tutorial', 'tall', 'saturated' }) do
      for _, class in ipairs({ 'LLTMCell', 'LLTMCellComposed' }) do
        gpu_it(string.format('%s matches golden %s in %s', class, case, dtype), function()
          local g = golden('lltm_cell/' .. case, CELL, dtype)
          local cell = cell_with(class, g.W, g.b)
          local new_h, new_c = cell:forward(g.x, g.h, g.c)
          local d_x, d_h, d_c = cell:backward(g.grad_h, g.grad_c)
          assert.are.equal('cuda', new_h.device)
          for name, t in pairs({ new_h = new_h, new_c = new_c, d_x = d_x, d_h = d_h, d_c = d_c,
                                 d_W = cell.grad.weight, d_b = cell.grad.bias }) do
            close(t, g[name], helper.golden_tolerance('lltm_cell/' .. case, name, dtype), name)
          end
        end)
      end
    end

    for _, case in ipairs({ 'short', 'long' }) do
      gpu_it(string.format('the sequence (nn.LLTM) matches golden %s in %s', case, dtype), function()
        local g = golden('lltm_seq/' .. case, SEQ, dtype)
        local H = g.W:size(1) / 3
        local rnn = fused.nn.LLTM(g.W:size(2) - H, H, { dtype = dtype }):cuda()
        rnn.weight:copy(g.W)
        rnn.bias:copy(g.b)
        local hs, _, c_T = rnn:forward(g.xs, g.h0, g.c0)
        local d_xs, d_h0, d_c0 = rnn:backward(g.r, nil, g.s)
        for name, t in pairs({ hs = hs, c_T = c_T, d_xs = d_xs, d_h0 = d_h0, d_c0 = d_c0,
                               d_W = rnn.grad.weight, d_b = rnn.grad.bias }) do
          close(t, g[name], helper.golden_tolerance('lltm_seq/' .. case, name, dtype), name)
        end
      end)
    end
  end

  gpu_it('fused equals composed on the GPU, and the GPU equals the CPU, B > 64 included', function()
    fused.manual_seed(5)
    for _, s in ipairs({ { 1, 1, 1 }, { 5, 1, 3 }, { 7, 9, 33 }, { 130, 6, 40 } }) do
      local B, I, H = s[1], s[2], s[3]
      local what = string.format('(%d, %d, %d) ', B, I, H)
      local o = { dtype = 'float64' }
      local cpu = fused.nn.LLTMCell(I, H, o)
      local inputs = { fused.randn({ B, I }, o), fused.randn({ B, H }, o), fused.randn({ B, H }, o) }
      local grads = { fused.randn({ B, H }, o), fused.randn({ B, H }, o) }
      local want = { cpu:forward(inputs[1], inputs[2], inputs[3]) }
      for _, t in ipairs({ cpu:backward(grads[1], grads[2]) }) do want[#want + 1] = t end
      want[#want + 1], want[#want + 2] = cpu.grad.weight, cpu.grad.bias
      for _, class in ipairs({ 'LLTMCell', 'LLTMCellComposed' }) do
        local cell = cell_with(class, cpu.weight:cuda(), cpu.bias:cuda())
        local got = { cell:forward(inputs[1]:cuda(), inputs[2]:cuda(), inputs[3]:cuda()) }
        for _, t in ipairs({ cell:backward(grads[1]:cuda(), grads[2]:cuda()) }) do got[#got + 1] = t end
        got[#got + 1], got[#got + 2] = cell.grad.weight, cell.grad.bias
        for i, name in ipairs({ 'new_h', 'new_c', 'd_x', 'd_h', 'd_c', 'gradWeight', 'gradBias' }) do
          close(got[i], want[i], 1e-12, what .. class .. ' ' .. name)
        end
      end
    end
  end)

  gpu_it('a second backward adds into grad.weight and grad.bias again', function()
    local g = golden('lltm_cell/odd', CELL, 'float64')
    local cell = cell_with('LLTMCell', g.W, g.b)
    cell:forward(g.x, g.h, g.c)
    cell:backward(g.grad_h, g.grad_c)
    cell:forward(g.x, g.h, g.c) -- backward runs once per forward
    cell:backward(g.grad_h, g.grad_c)
    close(cell.grad.weight, g.d_W * 2, 1e-10, 'gradWeight after two backwards')
    close(cell.grad.bias, g.d_b * 2, 1e-10, 'gradBias after two backwards')
  end)

  gpu_it('passes gradcheck in float64 on the GPU', function()
    fused.manual_seed(2)
    local o = { dtype = 'float64', device = 'cuda' }
    local inputs = { fused.randn({ 2, 3 }, o), fused.randn({ 12, 7 }, o) * 0.5, fused.randn({ 12 }, o),
                     fused.randn({ 2, 4 }, o), fused.randn({ 2, 4 }, o) }
    local ok, worst = fused.gradcheck({ forward = fused.functional.lltm_forward,
                                        backward = fused.functional.lltm_backward }, inputs)
    assert(ok, worst.message)
  end)

  gpu_it('mixed devices are clear errors', function()
    local cell = fused.nn.LLTMCell(3, 4):cuda()
    local x, h, c = fused.randn({ 2, 3 }), fused.randn({ 2, 4 }), fused.randn({ 2, 4 })
    err(function() cell:forward(x, h, c) end, "LLTMCell:forward: argument 'x'",
        "expected float32 on cuda (the module's), got float32 on cpu")
    err(function() cell:forward(x:cuda(), h, c:cuda()) end, "LLTMCell:forward: argument 'h'",
        'on cuda', 'got float32 on cpu')
  end)

  gpu_it('gives the same bits on every run', function()
    fused.manual_seed(9)
    local B, I, H = 200, 24, 48 -- B > 64: the bias gradient sums over several blocks of rows
    local cell = fused.nn.LLTMCell(I, H):cuda()
    local x, h, c = fused.randn({ B, I }):cuda(), fused.randn({ B, H }):cuda(), fused.randn({ B, H }):cuda()
    local function run()
      cell:zeroGradParameters()
      local new_h, new_c = cell:forward(x, h, c)
      local d_x, d_h, d_c = cell:backward(new_h, new_c)
      return { new_h:totable(), d_x:totable(), d_h:totable(), d_c:totable(),
               cell.grad.weight:totable(), cell.grad.bias:totable() }
    end
    local first = run()
    for _ = 1, 3 do assert.are.same(first, run()) end
  end)
end)
