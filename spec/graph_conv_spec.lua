-- nn.GraphConv: PyTorch's numbers for every golden case with A dense and sparse, float64 and
-- float32; its weight in nn.Linear's layout (a PyTorch Geometric GCNConv state_dict); gradcheck
-- through both associations, with and without the relu; Aᵀ built once per sparse A; a steady
-- step allocates nothing; bad input.
local helper = require 'spec.helper'
local fused = helper.fused
local close, err = helper.assert_close, helper.assert_error

local CASES = { 'small', 'medium' }
local GRADIENTS = { out = 'out', d_X = 'd_X', d_W = 'gradWeight', d_b = 'gradBias' }

-- The layer for golden case `case` in dtype, its weights the case's; A dense or sparse. The
-- golden W is in x out (X·W); the layer's weight is out x in, as nn.Linear's.
local function golden_layer(case, dtype, as_sparse)
  local function load(name) return helper.load_golden('gc/' .. case, name, dtype) end
  local W = load('W')
  local gc = fused.nn.GraphConv(W:size(1), W:size(2), { dtype = dtype })
  assert.are.same({ W:size(2), W:size(1) }, gc.weight:shape())
  gc.weight:copy_(W:t())
  gc.bias:copy_(load('b'))
  local A = load('A')
  return gc, as_sparse and fused.sparse.from_dense(A) or A, load('X'), load('grad_out'), load
end

describe('nn.GraphConv', function()
  for _, case in ipairs(CASES) do
    for _, dtype in ipairs({ 'float64', 'float32' }) do
      for _, as_sparse in ipairs({ false, true }) do
        local what = string.format('gc/%s %s, A %s', case, dtype, as_sparse and 'sparse' or 'dense')
        it('matches PyTorch on ' .. what, function()
          local gc, A, X, grad_out, load = golden_layer(case, dtype, as_sparse)
          local got = { out = gc:forward(A, X):clone() }
          got.d_X = gc:backward(grad_out)
          got.gradWeight, got.gradBias = gc.grad.weight:t(), gc.grad.bias
          for name, field in pairs(GRADIENTS) do
            close(got[field], load(name), helper.golden_tolerance('gc/' .. case, name, dtype), what .. ' ' .. name)
          end
        end)
      end
    end
  end

  it('gives the same numbers for A dense and sparse, both associations, with the relu', function()
    fused.manual_seed(5)
    local o = { dtype = 'float64' }
    local A = fused.randn({ 40, 40 }, o) * fused.rand({ 40, 40 }, o):sub(0.9):d_relu()
    local S = fused.sparse.from_dense(A)
    for _, shape in ipairs({ { 12, 5 }, { 5, 12 } }) do -- A·(X·W), then (A·X)·W
      local X, g = fused.randn({ 40, shape[1] }, o), fused.randn({ 40, shape[2] }, o)
      local dense, sparse = fused.nn.GraphConv(shape[1], shape[2], { activation = 'relu', dtype = 'float64' }), nil
      dense.bias:normal_()
      sparse = dense:shared_clone()
      local out = dense:forward(A, X):clone()
      local d_X = dense:backward(g):clone()
      local gW, gb = dense.grad.weight:clone(), dense.grad.bias:clone()
      dense:zeroGradParameters()
      close(sparse:forward(S, X), out, 1e-12, 'out')
      close(sparse:backward(g), d_X, 1e-12, 'd_X')
      close(sparse.grad.weight, gW, 1e-12, 'd_W')
      close(sparse.grad.bias, gb, 1e-12, 'd_b')
      close(out, fused.addmm(dense.bias, A, fused.matmul(X, dense.weight:t())):relu(), 1e-12,
            'relu(A X Wt + b)')
    end
  end)

  -- PyTorch Geometric's GCNConv keeps its weight in a Linear without a bias ('lin.weight', out x
  -- in) and adds 'bias' after the propagation: its state_dict loads under our names as they are.
  it('keeps its weight in Linear\'s layout: a GCNConv state_dict loads as it is', function()
    fused.manual_seed(4)
    local o = { dtype = 'float64' }
    local A, X = fused.randn({ 6, 6 }, o), fused.randn({ 6, 5 }, o)
    local gcnconv = { ['lin.weight'] = fused.randn({ 3, 5 }, o), bias = fused.randn({ 3 }, o) }
    local gc = fused.nn.GraphConv(5, 3, o)
    gc:load_state_dict({ weight = gcnconv['lin.weight'], bias = gcnconv.bias })
    local lin = fused.nn.Linear(5, 3, { bias = false, dtype = 'float64' })
    lin:load_state_dict({ weight = gcnconv['lin.weight'] })
    close(gc:forward(A, X), fused.addmm(gcnconv.bias, A, lin:forward(X)), 1e-12, 'A·lin(X) + bias')
  end)

  for _, relu in ipairs({ false, true }) do
    for _, shape in ipairs({ { 6, 3 }, { 3, 6 } }) do
      for _, as_sparse in ipairs({ false, true }) do
        local what = string.format('%s -> %s%s, A %s', shape[1], shape[2], relu and ', relu' or '',
                                   as_sparse and 'sparse' or 'dense')
        it('passes gradcheck, ' .. what, function()
          fused.manual_seed(7)
          local o = { dtype = 'float64' }
          local A = fused.randn({ 9, 9 }, o) * fused.rand({ 9, 9 }, o):sub(0.6):d_relu()
          if as_sparse then A = fused.sparse.from_dense(A) end
          local gc = fused.nn.GraphConv(shape[1], shape[2], { dtype = 'float64', activation = relu and 'relu' or nil })
          local layer = {
            forward = function(X, W, b)
              gc.weight:copy_(W); gc.bias:copy_(b)
              return gc:forward(A, X):clone(), 'ctx'
            end,
            backward = function(_, g)
              gc:zeroGradParameters()
              return gc:backward(g):clone(), gc.grad.weight:clone(), gc.grad.bias:clone()
            end,
          }
          local inputs = { fused.randn({ 9, shape[1] }, o), fused.randn({ shape[2], shape[1] }, o),
                           fused.randn({ shape[2] }, o) }
          local ok, worst = fused.gradcheck(layer, inputs)
          assert.is_true(ok, worst.message)
        end)
      end
    end
  end

  it('adds into its gradients, and builds a sparse Aᵀ once for every layer and step', function()
    fused.manual_seed(2)
    local S = fused.sparse.from_dense(fused.randn({ 10, 10 }) * fused.rand({ 10, 10 }):sub(0.7):d_relu())
    local transposes, t = 0, S.t
    S.t = function(self) transposes = transposes + 1; return t(self) end
    local first, second = fused.nn.GraphConv(4, 3, { activation = 'relu' }), fused.nn.GraphConv(3, 6)
    local X, g = fused.randn({ 10, 4 }), fused.randn({ 10, 6 })
    for _ = 1, 3 do first:backward(second:backward(second:forward(S, first:forward(S, X)))) end
    assert.are.equal(1, transposes)
    second:zeroGradParameters()
    local H = first:forward(S, X)
    second:forward(S, H)
    second:backward(g)
    local grad = second.grad.weight:clone()
    second:forward(S, H) -- backward runs once per forward
    second:backward(g)
    close(second.grad.weight, grad * 2, 1e-6, 'two backwards add up')
  end)

  it('allocates nothing in a step with the shapes of the last', function()
    fused.manual_seed(4)
    local S = fused.sparse.from_dense(fused.randn({ 30, 30 }) * fused.rand({ 30, 30 }):sub(0.8):d_relu())
    local D = S:to_dense()
    for _, A in ipairs({ S, D }) do
      local first, second = fused.nn.GraphConv(8, 4, { activation = 'relu' }), fused.nn.GraphConv(4, 5)
      local X, g = fused.randn({ 30, 8 }), fused.randn({ 30, 5 })
      local function step()
        second:forward(A, first:forward(A, X))
        first:backward(second:backward(g))
      end
      step()
      local before = fused.debug.allocations()
      step()
      assert.are.equal(before, fused.debug.allocations())
    end
  end)

  describe('bad input', function()
    local gc = fused.nn.GraphConv(3, 2)
    local X = fused.zeros({ 4, 3 })

    it('A not square, or not a matrix', function()
      err(function() gc:forward(fused.zeros({ 4, 5 }), X) end,
          "GraphConv:forward: argument 'A' expected a square N x N adjacency, got [4, 5]")
      err(function() gc:forward(fused.sparse.from_coo({ 1 }, { 1 }, { 1 }, { 4, 5 }), X) end,
          "GraphConv:forward: argument 'A' expected a square N x N adjacency, got 4 x 5 (sparse)")
      err(function() gc:forward(fused.zeros({ 4 }), X) end, "argument 'A' expected a square N x N adjacency, got [4]")
      err(function() gc:forward({}, X) end, "GraphConv:forward: argument 'A' expected a tensor or a sparse matrix, got table")
    end)

    it('A and X disagreeing on N, X of other features, dtypes or devices', function()
      err(function() gc:forward(fused.zeros({ 5, 5 }), X) end,
          "GraphConv:forward: argument 'X' expected 5 x 3 (N from 'A' x in_features), got [4, 3]")
      err(function() gc:forward(fused.sparse.from_coo({ 1 }, { 1 }, { 1 }, { 5, 5 }), X) end,
          "argument 'X' expected 5 x 3 (N from 'A' x in_features), got [4, 3]")
      err(function() gc:forward(fused.zeros({ 4, 4 }), fused.zeros({ 4, 2 })) end,
          "argument 'X' expected 4 x 3 (N from 'A' x in_features), got [4, 2]")
      err(function() gc:forward(fused.zeros({ 4, 4 }, { dtype = 'float64' }), X) end,
          "GraphConv:forward: argument 'A' expected float32 on cpu (the module's), got float64 on cpu")
    end)

    it('backward before forward, a grad_out of another shape, bad options', function()
      err(function() fused.nn.GraphConv(3, 2):backward(fused.zeros({ 4, 2 })) end,
          'GraphConv:backward: no forward to go back through (call forward first)')
      gc:forward(fused.zeros({ 4, 4 }), X)
      err(function() gc:backward(fused.zeros({ 4, 3 })) end,
          "GraphConv:backward: argument 'grad_out' expected shape [4, 2] (the output's), got [4, 3]")
      err(function() fused.nn.GraphConv(3, 2, { activation = 'tanh' }) end,
          "GraphConv: option 'activation' expected 'relu' or nil, got 'tanh'")
      err(function() fused.nn.GraphConv(3, 2, { activaton = 'relu' }) end, "GraphConv: unknown option 'activaton'")
      err(function() fused.nn.GraphConv(0, 2) end, "GraphConv: argument 'in_features' expected a positive integer, got 0")
    end)
  end)
end)
