-- nn.Softmax, nn.LogSoftmax, nn.NLLLoss and CrossEntropyLoss's options and layouts beyond the
-- PyTorch goldens (losses_golden_spec.lua): the layout rule, refusals, all targets ignored,
-- and CUDA against the CPU.
local helper = require 'spec.helper'
local fused = helper.fused
local nn = fused.nn
local err = helper.assert_error
local F64 = { dtype = 'float64' }

describe('nn.Softmax and nn.LogSoftmax', function()
  for _, case in ipairs({ { 'Softmax', 'softmax' }, { 'LogSoftmax', 'log_softmax' } }) do
    local class, op = case[1], case[2]
    it(class .. ' is fused.' .. op .. ' along its dim, forward and backward', function()
      local x, d_y = fused.randn({ 3, 4, 2 }, F64), fused.randn({ 3, 4, 2 }, F64)
      local m = nn[class](-2)
      local y = m:forward(x)
      helper.assert_close(y, fused[op](x, 2), 0, 'output')
      helper.assert_close(m:backward(d_y), fused[op .. '_backward'](d_y, fused[op](x, 2), 2), 0, 'gradient')
      assert.are.equal('fused.nn.' .. class .. '(dim=-2)', tostring(m))
      err(function() nn[class]() end, class .. ": argument 'dim' expected a dim", 'got nil')
      err(function() nn[class](2):backward(d_y) end, 'no forward to go back through')
      m:forward(x) -- backward runs once per forward
      err(function() m:backward(fused.randn({ 3, 4 }, F64)) end, "argument 'd_output' expected shape [3, 4, 2]")
    end)
  end

  it('LogSoftmax then NLLLoss is CrossEntropyLoss', function()
    local x, t = fused.randn({ 6, 5 }, F64):mul_(4), { 1, 5, 2, 2, 3, 4 }
    local ls, nll, ce = nn.LogSoftmax(2), nn.NLLLoss(), nn.CrossEntropyLoss()
    local loss = nll:forward(ls:forward(x), t)
    assert(math.abs(loss - ce:forward(x, t)) < 1e-14)
    helper.assert_close(ls:backward(nll:backward(ls.buffers.output, t)), ce:backward(x, t), 1e-13, 'gradient')
  end)
end)

describe('the class layouts of CrossEntropyLoss and NLLLoss', function()
  it('read (N, C, d) with (N, d) targets as PyTorch, and class-last as before', function()
    local x = fused.randn({ 2, 3, 4 }, F64)
    local t = fused.tensor({ { 1, 2, 3, 1 }, { 3, 3, 2, 1 } }, { dtype = 'int64' })
    local ce = nn.CrossEntropyLoss()
    local class_last = x:transpose(2, 3):contiguous()
    assert(math.abs(ce:forward(x, t) - ce:forward(class_last, t:view(-1))) < 1e-14)
    helper.assert_close(ce:backward(x, t), ce:backward(class_last, t:view(-1)):transpose(2, 3), 1e-15, 'gradient')
    -- T x B x C with T x B targets, B differing from C: class-last, as always.
    local seq = fused.randn({ 2, 4, 3 }, F64)
    assert.are.same({ 2, 4, 3 }, ce:backward(seq, t):shape())
  end)

  it('refuse a shape that reads both ways, saying how to call it', function()
    local x, t = fused.randn({ 2, 3, 3 }, F64), fused.ones({ 2, 3 }, { dtype = 'int64' })
    for _, class in ipairs({ 'CrossEntropyLoss', 'NLLLoss' }) do
      err(function() nn[class]():forward(x, t) end, class .. ':forward',
          "reads both as PyTorch's (N, C, d) and as class-last (T, B, C)", 'pass the targets flat')
      assert.is_number(nn[class]():forward(x, t:view(-1)))
    end
  end)
end)

describe('CrossEntropyLoss and NLLLoss options', function()
  it('give NaN for the mean over no targets, as PyTorch, and zero gradients', function()
    local x = fused.randn({ 2, 3 }, F64)
    local ce = nn.CrossEntropyLoss({ ignore_index = 2 })
    local loss = ce:forward(x, { 2, 2 })
    assert.are_not.equal(loss, loss)
    assert.are.equal(0, ce:backward(x, { 2, 2 }):abs():sum())
  end)

  it('pass a float64 gradcheck with every option', function()
    local F = fused.functional
    local t = fused.tensor({ 2, -100, 3, 1, 3 }, { dtype = 'int64' })
    local opts = { ignore_index = -100, label_smoothing = 0.25, reduction = 'none' }
    local function op(forward, backward)
      return {
        forward = function(x) return forward(x, t, opts), { x = x } end,
        backward = function(ctx, g)
          return backward(ctx.x, t, { ignore_index = -100, label_smoothing = opts.label_smoothing,
                                      reduction = 'none', grad_output = g })
        end,
      }
    end
    local x = fused.randn({ 5, 3 }, F64):mul_(3)
    local ok, worst = fused.gradcheck(op(F.cross_entropy, F.cross_entropy_backward), { x })
    assert.is_true(ok, worst.message)
    opts.label_smoothing = nil
    ok, worst = fused.gradcheck(op(F.nll_loss, F.nll_loss_backward), { x })
    assert.is_true(ok, worst.message)
  end)

  it('refuse bad options and targets, naming them', function()
    err(function() nn.CrossEntropyLoss({ reduction = 'avg' }) end,
        "CrossEntropyLoss: option 'reduction' expected 'mean', 'sum' or 'none', got avg")
    err(function() nn.CrossEntropyLoss({ label_smoothing = 1.5 }) end,
        "CrossEntropyLoss: option 'label_smoothing' expected a number in [0, 1], got 1.5")
    err(function() nn.NLLLoss({ ignore_index = 'x' }) end, "NLLLoss: option 'ignore_index' expected an integer, got string")
    err(function() nn.NLLLoss({ label_smoothing = 0.1 }) end, "NLLLoss: unknown option 'label_smoothing'")
    local x = fused.randn({ 2, 3 }, F64)
    err(function() nn.CrossEntropyLoss({ ignore_index = -1 }):forward(x, { 4, -1 }) end,
        "CrossEntropyLoss:forward: argument 'targets' expected class indices 1 to 3 or ignore_index -1, got 4 at position 1")
    err(function() nn.NLLLoss({ reduction = 'none' }):backward(x, { 1, 2 }, fused.ones(3, F64)) end,
        "NLLLoss:backward: argument 'd_loss' expected shape [2] (the targets', reduction 'none'), got [3]")
  end)

  helper.gpu_it('match the CPU on CUDA with every option, in both layouts', function()
    local cases = { { fused.randn({ 4, 3 }, F64), { 1, 3, -100, 2 } },
                    { fused.randn({ 2, 3, 2, 2 }, F64), { { { 1, 3 }, { -100, 2 } }, { { 2, 2 }, { 3, 1 } } } } }
    for _, case in ipairs(cases) do
      local x, t = case[1], case[2]
      local opts = { ignore_index = -100, label_smoothing = 0.2, reduction = 'sum' }
      local ce = nn.CrossEntropyLoss(opts)
      assert(math.abs(ce:forward(x:cuda(), t) - ce:forward(x, t)) < 1e-12)
      local d = ce:backward(x:cuda(), t)
      assert.are.equal('cuda', d.device)
      helper.assert_close(d:cpu(), ce:backward(x, t), 1e-12, 'gradient')
      local nll = nn.NLLLoss({ ignore_index = -100, reduction = 'none' })
      local lp = fused.log_softmax(x, 2)
      helper.assert_close(nll:forward(lp:cuda(), t):cpu(), nll:forward(lp, t), 1e-12, 'NLL')
    end
  end)
end)
