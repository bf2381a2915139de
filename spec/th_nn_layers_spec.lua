-- Torch7's nn classes inside `fused th` (lua/fused/th/nn/): every class's gradients against
-- central differences in float64, and the criterions, convolutions, pooling and batch
-- normalization against PyTorch in float64 (spec/data/th/nn/gen.py makes the references).
local helper = require 'spec.helper'
local fused = helper.fused
local nn = require 'fused.th.nn'
local class = require 'fused.th.class'
local J = require 'spec.th_jacobian'

local function r(...) return fused.randn({ ... }, { dtype = 'float64' }) end
local function positive(...) return fused.rand({ ... }, { dtype = 'float64' }):add_(0.5) end
local data = setmetatable({}, { __index = function(t, name)
  t[name] = fused.load_npy('spec/data/th/nn/' .. name .. '.npy')
  return t[name]
end })

describe('th nn gradients (float64, central differences)', function()
  fused.manual_seed(3)
  local cases = {
    { 'Linear', function() return nn.Linear(4, 3), r(5, 4) end },
    { 'Linear of a vector', function() return nn.Linear(4, 3), r(4) end },
    { 'Linear without bias', function() return nn.Linear(4, 3, false), r(2, 4) end },
    { 'LookupTable', function() return nn.LookupTable(5, 3), fused.tensor({ { 1, 3, 3 }, { 5, 2, 1 } }):long() end },
    { 'Tanh', function() return nn.Tanh(), r(3, 4) end },
    { 'Sigmoid', function() return nn.Sigmoid(), r(3, 4) end },
    { 'ReLU', function() return nn.ReLU(), r(3, 4) end },
    { 'Abs', function() return nn.Abs(), r(3, 4) end },
    { 'Square', function() return nn.Square(), r(3, 4) end },
    { 'Sqrt', function() return nn.Sqrt(), positive(3, 4) end },
    { 'Power', function() return nn.Power(3), r(3, 4) end },
    { 'Exp', function() return nn.Exp(), r(3) end },
    { 'Log', function() return nn.Log(), positive(3) end },
    { 'HardTanh', function() return nn.HardTanh(), r(3, 4) end },
    { 'Threshold', function() return nn.Threshold(0.2, -3), r(3, 4) end },
    { 'LeakyReLU', function() return nn.LeakyReLU(0.1), r(3, 4) end },
    { 'ELU', function() return nn.ELU(0.7), r(3, 4) end },
    { 'SoftPlus', function() return nn.SoftPlus(2), r(3, 4) end },
    { 'SoftSign', function() return nn.SoftSign(), r(3, 4) end },
    { 'LogSigmoid', function() return nn.LogSigmoid(), r(3, 4) end },
    { 'MulConstant', function() return nn.MulConstant(2.5), r(3) end },
    { 'AddConstant', function() return nn.AddConstant(2), r(3) end },
    { 'SoftMax', function() return nn.SoftMax(), r(3, 4) end },
    { 'LogSoftMax', function() return nn.LogSoftMax(), r(3, 4) end },
    { 'LogSoftMax of a vector', function() return nn.LogSoftMax(), r(4) end },
    { 'Dropout in evaluation', function() local d = nn.Dropout(0.3) d:evaluate() return d, r(3, 4) end },
    { 'View', function() return nn.View(2, 6), r(3, 12) end },
    { 'View with -1', function() return nn.View(-1):setNumInputDims(2), r(3, 2, 2) end },
    { 'Reshape', function() return nn.Reshape(4, 2), r(3, 8) end },
    { 'Identity', function() return nn.Identity(), r(2) end },
    { 'Narrow', function() return nn.Narrow(2, 2, 2), r(3, 4) end },
    { 'Sum', function() return nn.Sum(2), r(3, 4) end },
    { 'Mean', function() return nn.Mean(1), r(3, 4) end },
    { 'CAddTable', function() return nn.CAddTable(), { r(2, 3), r(2, 3), r(2, 3) } end },
    { 'CSubTable', function() return nn.CSubTable(), { r(2, 3), r(2, 3) } end },
    { 'CMulTable', function() return nn.CMulTable(), { r(2, 3), r(2, 3), r(2, 3) } end },
    { 'CAddTable of shapes that broadcast', function() return nn.CAddTable(), { r(1), r(2, 3), r(3) } end },
    { 'CMulTable of shapes that broadcast', function() return nn.CMulTable(), { r(2, 1), r(2, 3) } end },
    { 'CSubTable of shapes that broadcast', function() return nn.CSubTable(), { r(3), r(2, 3) } end },
    { 'JoinTable', function() return nn.JoinTable(2), { r(2, 3), r(2, 1) } end },
    { 'SplitTable', function() return nn.SplitTable(2), r(2, 3) end },
    { 'SelectTable', function() return nn.SelectTable(-1), { r(2), r(3) } end },
    { 'NarrowTable', function() return nn.NarrowTable(2, 2), { r(2), r(3), r(1) } end },
    { 'Concat', function() return nn.Concat(2):add(nn.Linear(3, 2)):add(nn.Tanh()), r(4, 3) end },
    { 'Parallel', function() return nn.Parallel(2, 1):add(nn.Linear(3, 2)):add(nn.Tanh()), r(3, 2) end },
    { 'Select', function() return nn.Select(2, -1), r(3, 4) end },
    { 'Squeeze', function() return nn.Squeeze(), r(3, 1, 4) end },
    { 'Unsqueeze', function() return nn.Unsqueeze(2), r(3, 4) end },
    { 'Transpose', function() return nn.Transpose({ 1, 2 }, { 2, 3 }), r(2, 3, 4) end },
    { 'Replicate', function() return nn.Replicate(3, 2, 1), r(2, 4) end },
    { 'MM', function() return nn.MM(), { r(2, 3), r(3, 4) } end },
    { 'MM transposed, batched', function() return nn.MM(true, true), { r(2, 3, 4), r(2, 5, 3) } end },
    { 'Mul', function() return nn.Mul(), r(3, 2) end },
    { 'Add', function() return nn.Add(4), r(3, 4) end },
    { 'Add of one number', function() return nn.Add(4, true), r(3, 4) end },
    { 'CMul', function() return nn.CMul(4), r(3, 4) end },
    { 'Max', function() return nn.Max(2), r(3, 4) end },
    { 'Min of a vector', function() return nn.Min(1), r(5) end },
    { 'SpatialConvolution', function() return nn.SpatialConvolution(2, 3, 3, 2), r(2, 2, 5, 4) end },
    { 'SpatialConvolutionMM, strided and padded, of 3 dims', function()
      return nn.SpatialConvolutionMM(2, 3, 3, 3, 2, 1, 1, 1), r(2, 5, 6) end },
    { 'SpatialMaxPooling', function() return nn.SpatialMaxPooling(2, 2), r(2, 2, 4, 6) end },
    { 'SpatialAveragePooling, padded, ceil', function() return nn.SpatialAveragePooling(3, 3, 2, 2, 1, 1):ceil(), r(1, 2, 6, 5) end },
    { 'SpatialMaxPooling, padded, ceil', function() return nn.SpatialMaxPooling(3, 3, 2, 2, 1, 1):ceil(), r(1, 2, 6, 5) end },
    { 'TemporalConvolution', function() return nn.TemporalConvolution(3, 2, 3, 2), r(2, 8, 3) end },
    { 'TemporalConvolution of one sequence', function() return nn.TemporalConvolution(2, 3, 2), r(5, 2) end },
    { 'BatchNormalization', function() return nn.BatchNormalization(3), r(5, 3) end },
    { 'BatchNormalization without affine', function() return nn.BatchNormalization(3, nil, nil, false), r(5, 3) end },
    { 'SpatialBatchNormalization', function() return nn.SpatialBatchNormalization(2), r(3, 2, 2, 3) end },
    { 'BatchNormalization in evaluation', function()
      local bn = nn.BatchNormalization(3)
      bn.running_mean:copy_(r(3))
      bn:evaluate()
      return bn, r(5, 3) end },
    { 'Sequential', function() return nn.Sequential():add(nn.Linear(3, 4)):add(nn.Tanh()):add(nn.Linear(4, 2)), r(5, 3) end },
    { 'ConcatTable', function() return nn.ConcatTable():add(nn.Linear(3, 2)):add(nn.Identity()), r(2, 3) end },
    { 'ParallelTable', function() return nn.ParallelTable():add(nn.Linear(3, 2)):add(nn.Tanh()), { r(2, 3), r(2, 2) } end },
  }
  for _, case in ipairs(cases) do
    it(case[1], function()
      local input_error, param_error = J.errors(case[2]())
      assert.is_true(input_error < 1e-7, case[1] .. ": input's gradient off by " .. input_error)
      assert.is_true(param_error < 1e-7, case[1] .. ": parameters' gradient off by " .. param_error)
    end)
  end
end)

describe('th nn criterions', function()
  local x, target, weights = data.x, data.target, data.weights
  local cases = {
    { 'ClassNLLCriterion', nn.ClassNLLCriterion(), x, target, 'nll' },
    { 'ClassNLLCriterion without sizeAverage', nn.ClassNLLCriterion(nil, false), x, target, 'nll_sum' },
    { 'ClassNLLCriterion with weights', nn.ClassNLLCriterion(weights), x, target, 'nll_weights' },
    { 'CrossEntropyCriterion', nn.CrossEntropyCriterion(), x, target, 'ce' },
    { 'CrossEntropyCriterion with weights', nn.CrossEntropyCriterion(weights), x, target, 'ce_weights' },
    { 'MSECriterion', nn.MSECriterion(), x, data.y, 'mse' },
    { 'MSECriterion without sizeAverage', nn.MSECriterion(false), x, data.y, 'mse_sum' },
    { 'BCECriterion', nn.BCECriterion(), data.p, data.t, 'bce' },
    { 'AbsCriterion', nn.AbsCriterion(), x, data.y, 'abs' },
    { 'AbsCriterion without sizeAverage', nn.AbsCriterion(false), x, data.y, 'abs_sum' },
    { 'SmoothL1Criterion', nn.SmoothL1Criterion(), x, data.y, 'smoothl1' },
    { 'DistKLDivCriterion', nn.DistKLDivCriterion(), data.logq, data.tq, 'kldiv' },
    { 'BCECriterion with weights, summed', nn.BCECriterion(weights, false), data.p, data.t, 'bce_weights_sum' },
  }
  for _, case in ipairs(cases) do
    it(case[1] .. " gives PyTorch's loss and gradient within 1e-10", function()
      local crit, input, t, name = case[2], case[3], case[4], case[5]
      local loss = crit:forward(input, t)
      assert.equals(loss, crit.output)
      assert.is_true(math.abs(loss - data[name .. '_loss']:item()) < 1e-10, name .. ' loss ' .. loss)
      helper.assert_close(crit:backward(input, t), data[name .. '_grad'], 1e-10, name .. ' gradient')
    end)
  end

  it('ParallelCriterion and MultiCriterion weigh and add their criterions', function()
    local mse, nll = nn.MSECriterion(), nn.ClassNLLCriterion()
    local pc = nn.ParallelCriterion():add(nll, 0.5):add(mse)
    local loss = pc:forward({ x, data.y }, { target, x })
    assert.is_true(math.abs(loss - (0.5 * data.nll_loss:item() + mse:forward(data.y, x))) < 1e-12)
    local g = pc:backward({ x, data.y }, { target, x })
    helper.assert_close(g[1], fused.mul(data.nll_grad, 0.5), 1e-12, 'nll part')
    local mc = nn.MultiCriterion():add(nn.MSECriterion(), 2):add(nn.AbsCriterion())
    assert.is_true(math.abs(mc:forward(x, data.y) - (2 * data.mse_loss:item() + data.abs_loss:item())) < 1e-12)
    helper.assert_close(mc:backward(x, data.y), fused.add(fused.mul(data.mse_grad, 2), data.abs_grad), 1e-12, 'sum')
    local repeated = nn.ParallelCriterion(true):add(nn.MSECriterion()):add(nn.AbsCriterion())
    assert.is_true(math.abs(repeated:forward({ x, x }, data.y) - (data.mse_loss:item() + data.abs_loss:item())) < 1e-12)
    assert.has_error(function() pc:add(nn.Linear(1, 1)) end,
      "nn.ParallelCriterion:add: argument 'criterion' expected an nn criterion, got nn.Linear")
  end)

  it('ClassNLLCriterion takes one vector and a class number, as Torch7', function()
    local crit = nn.ClassNLLCriterion()
    assert.equals(-x[2][5], crit:forward(x[2], 5))
    assert.same({ 0, 0, 0, 0, -1 }, crit:backward(x[2], 5):totable())
  end)
end)

describe('th nn spatial modules against PyTorch (float64)', function()
  it("SpatialConvolution gives conv2d's output and input gradient, padded and strided", function()
    local conv = nn.SpatialConvolution(2, 3, 3, 2, 2, 1, 1, 0)
    conv.weight:copy_(data.conv_w)
    conv.bias:copy_(data.conv_b)
    helper.assert_close(conv:forward(data.img), data.conv_out, 1e-10, 'output')
    helper.assert_close(conv:backward(data.img, data.conv_r), data.conv_grad, 1e-10, 'gradInput')
    local mm = nn.SpatialConvolutionMM(2, 3, 3, 2, 2, 1, 1, 0)
    mm.weight:copy_(data.conv_w:reshape(3, -1))
    mm.bias:copy_(data.conv_b)
    helper.assert_close(mm:forward(data.img), data.conv_out, 1e-10, 'MM output')
  end)

  it("SpatialMaxPooling with ceil() gives max_pool2d's ceil_mode output and gradient", function()
    local pool = nn.SpatialMaxPooling(3, 3, 2, 2, 1, 1):ceil()
    helper.assert_close(pool:forward(data.img), data.pool_out, 0, 'output')
    helper.assert_close(pool:backward(data.img, data.pool_r), data.pool_grad, 1e-12, 'gradInput')
    assert.has_error(function() nn.SpatialMaxPooling(7, 7):forward(r(1, 5, 5)) end,
      'nn.SpatialMaxPooling: the input (5) is too small for the kernel (7, padding 0): output size 0')
    assert.has_error(function() nn.SpatialConvolution(3, 2, 3, 3):forward(r(2, 5, 5)) end,
      'nn.SpatialConvolution: input expected 3 planes, got 2')
  end)

  it("TemporalConvolution gives conv1d's output and input gradient, strided", function()
    local tc = nn.TemporalConvolution(3, 2, 3, 2)
    tc.weight:copy_(data.tc_w)
    tc.bias:copy_(data.tc_b)
    helper.assert_close(tc:forward(data.seq), data.tc_out, 1e-10, 'output')
    helper.assert_close(tc:backward(data.seq, data.tc_r), data.tc_grad, 1e-10, 'gradInput')
    assert.has_error(function() tc:forward(r(2, 2, 3)) end,
      'nn.TemporalConvolution: 2 input frames are fewer than the kernel (3)')
  end)

  it("SpatialAveragePooling gives avg_pool2d's output and gradient, the padding counted or not", function()
    local pool = nn.SpatialAveragePooling(3, 3, 2, 2, 1, 1):ceil()
    helper.assert_close(pool:forward(data.img), data.avgpool_out, 1e-12, 'output')
    helper.assert_close(pool:backward(data.img, data.avgpool_r), data.avgpool_grad, 1e-12, 'gradInput')
    local exclude = nn.SpatialAveragePooling(3, 2, 1, 2, 1, 1):ceil():setCountExcludePad()
    helper.assert_close(exclude:forward(data.img), data.avgpool_exclude_out, 1e-12, 'output, padding not counted')
    helper.assert_close(exclude:backward(data.img, data.avgpool_exclude_r), data.avgpool_exclude_grad, 1e-12,
                        'gradInput, padding not counted')
  end)

  it("SpatialBatchNormalization gives batch_norm's output, gradient and running statistics, then evaluates with them", function()
    local bn = nn.SpatialBatchNormalization(2)
    bn.weight:copy_(data.bn_w)
    bn.bias:copy_(data.bn_b)
    helper.assert_close(bn:forward(data.img), data.bn_out, 1e-10, 'output')
    helper.assert_close(bn:backward(data.img, data.bn_r), data.bn_grad, 1e-10, 'gradInput')
    helper.assert_close(bn.running_mean, data.bn_running_mean, 1e-12, 'running_mean')
    helper.assert_close(bn.running_var, data.bn_running_var, 1e-12, 'running_var')
    bn:evaluate()
    helper.assert_close(bn:forward(data.img), data.bn_eval, 1e-10, 'evaluation')
    helper.assert_close(bn:forward(data.img[1]), data.bn_eval[1], 1e-10, 'one sample in evaluation')
    bn:training()
    assert.has_error(function() bn:forward(data.img[1]) end,
      'nn.SpatialBatchNormalization: input expected 4 dims (3 without the batch in evaluation), got 3')
  end)

  it('trains a small convnet with getParameters and optim.sgd: the loss falls', function()
    fused.manual_seed(4)
    local optim = require 'fused.th.optim'
    local model = nn.Sequential()
      :add(nn.SpatialConvolutionMM(1, 4, 3, 3)):add(nn.Tanh()):add(nn.SpatialMaxPooling(2, 2, 2, 2))
      :add(nn.Reshape(4 * 3 * 3)):add(nn.Linear(4 * 3 * 3, 2)):add(nn.LogSoftMax())
    local criterion = nn.ClassNLLCriterion()
    local inputs = fused.randn({ 8, 1, 8, 8 }, { dtype = 'float64' })
    local targets = fused.tensor({ 1, 2, 1, 2, 1, 2, 1, 2 })
    local params, grads = model:getParameters()
    local function feval()
      grads:zero_()
      local loss = criterion:forward(model:forward(inputs), targets)
      model:backward(inputs, criterion:backward(model.output, targets))
      return loss, grads
    end
    local state, first, last = { learningRate = 0.5, momentum = 0.9 }, nil, nil
    for _ = 1, 30 do
      local _, fs = optim.sgd(feval, params, state)
      first, last = first or fs[1], fs[1]
    end
    assert.is_true(last < first * 0.5, string.format('loss %g -> %g', first, last))
  end)
end)

describe('th nn element-wise modules', function()
  it("computes the element-wise modules' outputs as Torch7 defined them", function()
    local x = fused.tensor({ -30, -1, 0, 0.5, 15 }, { dtype = 'float64' })
    local function same(m, expected)
      local y = m:forward(x)
      for i = 1, 5 do assert.is_true(math.abs(y[i] - expected[i]) < 1e-12, tostring(m) .. ' at ' .. i) end
    end
    same(nn.Threshold(0.2, -3), { -3, -3, -3, 0.5, 15 })
    same(nn.ReLU(), { 0, 0, 0, 0.5, 15 })
    same(nn.LeakyReLU(), { -0.3, -0.01, 0, 0.5, 15 })
    same(nn.ELU(2), { 2 * (math.exp(-30) - 1), 2 * (math.exp(-1) - 1), 0, 0.5, 15 })
    same(nn.SoftPlus(2), { math.log(1 + math.exp(-60)) / 2, math.log(1 + math.exp(-2)) / 2, math.log(2) / 2,
                           math.log(1 + math.exp(1)) / 2, 15 }) -- 2 * 15 > 20: x itself
    same(nn.SoftSign(), { -30 / 31, -0.5, 0, 0.5 / 1.5, 15 / 16 })
    same(nn.LogSigmoid(), { -30 - math.log(1 + math.exp(-30)), -math.log(1 + math.exp(1)), -math.log(2),
                            -math.log(1 + math.exp(-0.5)), -math.log(1 + math.exp(-15)) })
    assert.is_true(class.is_type_of(nn.ReLU(), 'nn.Threshold')) -- as in Torch7
  end)
end)
