-- fused.sparse and nn.GraphConv on the GPU against the CPU (cuSPARSE's SpMM, the cached Aᵀ,
-- both associations). Without a device every test is pending with fused.cuda.why(), and moving
-- a sparse matrix there is a clear error.
local helper = require 'spec.helper'
local fused = helper.fused
local close, err = helper.assert_close, helper.assert_error

local gpu_it = helper.gpu_it
local TOL = { float64 = 1e-12, float32 = 1e-5 }

-- A random N x N matrix with about a tenth of its entries, dense, on the CPU.
local function thin(n, dtype)
  local o = { dtype = dtype }
  return fused.randn({ n, n }, o) * fused.rand({ n, n }, o):sub(0.9):d_relu()
end

describe('fused.sparse on CUDA', function()
  it('without a device, moving a sparse matrix there names the reason', function()
    helper.without_cuda([[
      local S = fused.sparse.from_coo({ 1 }, { 1 }, { 1 }, { 2, 2 })
      helper.assert_error(function() S:cuda() end, 'cuda', fused.cuda.why())]])
  end)

  for _, dtype in ipairs({ 'float32', 'float64' }) do
    gpu_it('sparse.mm with bias and relu equals the CPU in ' .. dtype, function()
      fused.manual_seed(21)
      local S = fused.sparse.from_dense(thin(50, dtype))
      local X, b = fused.randn({ 50, 9 }, { dtype = dtype }), fused.randn({ 9 }, { dtype = dtype })
      local G = S:cuda()
      assert.are.equal('cuda', G.device)
      close(fused.sparse.mm(G, X:cuda()), fused.sparse.mm(S, X), TOL[dtype], 'S X')
      close(fused.sparse.mm(G, X:cuda(), { bias = b:cuda(), activation = 'relu' }),
            fused.sparse.mm(S, X, { bias = b, activation = 'relu' }), TOL[dtype], 'relu(S X + b)')
      close(G:t():to_dense(), S:t():to_dense(), 0, 'transpose')
      assert.are.equal('cuda', G:t().device)
    end)

    gpu_it('GraphConv forward and backward equal the CPU, A dense and sparse, in ' .. dtype, function()
      for _, shape in ipairs({ { 12, 5 }, { 5, 12 } }) do
        for _, as_sparse in ipairs({ false, true }) do
          fused.manual_seed(22)
          local A = thin(40, dtype)
          if as_sparse then A = fused.sparse.from_dense(A) end
          local o = { dtype = dtype }
          local X, g = fused.randn({ 40, shape[1] }, o), fused.randn({ 40, shape[2] }, o)
          local cpu = fused.nn.GraphConv(shape[1], shape[2], { activation = 'relu', dtype = dtype })
          cpu.bias:normal_()
          -- A copy: :to() moves a module's own tensors, which a shared clone shares.
          local gpu = fused.nn.GraphConv(shape[1], shape[2], { activation = 'relu', dtype = dtype }):cuda()
          gpu:load_state_dict(cpu:state_dict())
          local what = string.format('%d -> %d, A %s', shape[1], shape[2], as_sparse and 'sparse' or 'dense')
          close(gpu:forward(A:cuda(), X:cuda()), cpu:forward(A, X), TOL[dtype], what .. ' out')
          close(gpu:backward(g:cuda()), cpu:backward(g), TOL[dtype], what .. ' d_X')
          close(gpu.grad.weight, cpu.grad.weight, TOL[dtype], what .. ' d_W')
          close(gpu.grad.bias, cpu.grad.bias, TOL[dtype], what .. ' d_b')
        end
      end
    end)
  end

  gpu_it('GraphConv matches PyTorch on every golden case with a sparse A on the GPU', function()
    for _, case in ipairs({ 'small', 'medium' }) do
      local function load(name) return helper.load_golden('gc/' .. case, name, 'float64'):cuda() end
      local W = load('W') -- in x out; the layer's weight is out x in
      local gc = fused.nn.GraphConv(W:size(1), W:size(2), { dtype = 'float64', device = 'cuda' })
      gc.weight:copy_(W:t())
      gc.bias:copy_(load('b'))
      local A = fused.sparse.from_dense(load('A'))
      close(gc:forward(A, load('X')), load('out'), 1e-10, case .. ' out')
      close(gc:backward(load('grad_out')), load('d_X'), 1e-10, case .. ' d_X')
      close(gc.grad.weight:t(), load('d_W'), 1e-10, case .. ' d_W')
      close(gc.grad.bias, load('d_b'), 1e-10, case .. ' d_b')
    end
  end)
end)
