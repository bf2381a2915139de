-- The CUDA emulator (cuda/emu/, docs/cuda.md) catches what a GPU would show only sometimes: a
-- missing __syncthreads gives wrong results on some thread orders, warps exchange values,
-- launches out of CUDA's limits fail as CUDA says. Its kernels are spec/cuda_emu/kernels.cu,
-- built by fused.ext as a user's .cu is (kernels.h declares them). Where a GPU answers, these
-- are pending: the order of its threads is not ours to choose.
local helper = require 'spec.helper'
local fused = helper.fused
local err = helper.assert_error

local function emulated_it(name, f)
  it(name, function()
    if not fused.cuda.is_emulated() then
      pending('runs on the CUDA emulator only: ' .. fused.cuda.why())
    end
    f()
  end)
end

local K
local function kernels()
  if not K then
    K = fused.ext.load { name = 'cuda_emu_kernels',
                         sources = { 'spec/cuda_emu/kernels.cu', 'spec/cuda_emu/kernels.h' } }
  end
  return K
end

-- How many of the neighbours that `blocks` blocks of 256 threads read are wrong, on `seed`.
local function wrong_neighbours(seed, blocks, barrier, tag)
  fused.cuda.emulator_seed(seed)
  local out = fused.zeros({ blocks * 256 }, { dtype = 'int64', device = 'cuda' })
  fused.ext.check(kernels().emu_neighbours(out, blocks, barrier and 1 or 0, tag))
  local got, wrong = out:cpu():totable(), 0
  for k, v in ipairs(got) do
    local b, i = math.floor((k - 1) / 256), (k - 1) % 256
    if v ~= tag + 1000 * b + math.max(i - 1, 0) then wrong = wrong + 1 end
  end
  return wrong
end

describe('the CUDA emulator', function()
  after_each(function() if fused.cuda.is_emulated() then fused.cuda.emulator_seed(1) end end)

  emulated_it('catches a missing __syncthreads: right in thread order, wrong in others', function()
    assert.are.equal(0, wrong_neighbours(0, 3, false, 10), 'thread order, no barrier')
    for seed = 1, 3 do
      assert.is_true(wrong_neighbours(seed, 3, false, 20 + seed) > 0,
                     'seed ' .. seed .. ': a race that no order exposes')
    end
    for seed = 0, 3 do
      assert.are.equal(0, wrong_neighbours(seed, 3, true, 30 + seed), 'seed ' .. seed .. ', barrier')
    end
  end)

  emulated_it('spreads the blocks of a large grid over its threads, each block its own shared memory', function()
    for seed = 0, 1 do assert.are.equal(0, wrong_neighbours(seed, 300, true, 40 + seed)) end
  end)

  emulated_it('exchanges values between the lanes of a warp (shuffle, ballot)', function()
    local out = fused.zeros({ 8 }, { dtype = 'int64', device = 'cuda' })
    fused.ext.check(kernels().emu_warp_sum(out))
    assert.are.same({ 496, 16, 1520, 16, 2544, 16, 3568, 16 }, out:cpu():totable())
  end)

  emulated_it('fails a launch out of CUDA limits as CUDA does', function()
    fused.ext.check(kernels().emu_launch_threads(1024, 48 * 1024))
    err(function() fused.ext.check(kernels().emu_launch_threads(1025, 0)) end,
        'emu_launch_threads', 'cudaErrorInvalidConfiguration', 'empty_kernel', '1025')
    err(function() fused.ext.check(kernels().emu_launch_threads(32, 48 * 1024 + 1)) end,
        'emu_launch_threads', 'cudaErrorInvalidValue', 'shared memory')
    -- the error is not sticky: the next launch runs
    fused.ext.check(kernels().emu_launch_threads(32, 0))
  end)

  emulated_it("runs cuBLAS's strided batched GEMM with its column-major, alpha, beta and lda rules", function()
    fused.manual_seed(5)
    local o = { dtype = 'float64' }
    local a, b, c = fused.randn({ 3, 4, 5 }, o), fused.randn({ 3, 5, 2 }, o), fused.randn({ 3, 4, 2 }, o)
    local want = {}
    for i = 1, 3 do want[i] = fused.matmul(a[i], b[i]) * 0.5 + c[i] * 2 end
    local g = c:cuda()
    fused.ext.check(kernels().emu_gemm_batched(g, a:cuda(), b:cuda(), 0.5, 2, 0))
    for i = 1, 3 do helper.assert_close(g:cpu()[i], want[i], 1e-14, 'batch ' .. i) end
    -- beta = 0 writes C without reading it: a NaN there does not survive
    local nan = fused.full({ 3, 4, 2 }, 0 / 0, { dtype = 'float64', device = 'cuda' })
    fused.ext.check(kernels().emu_gemm_batched(nan, a:cuda(), b:cuda(), 1, 0, 0))
    assert.are.equal('', helper.nan_mask(nan:cpu()):gsub('%.', ''))
    err(function() fused.ext.check(kernels().emu_gemm_batched(g, a:cuda(), b:cuda(), 1, 0, 1)) end,
        'emu_gemm_batched', 'CUBLAS_STATUS_INVALID_VALUE')
  end)

  emulated_it('runs cublasGemmEx on bfloat16 operands, float32 sums; refuses other types', function()
    fused.manual_seed(6)
    local a, b = fused.randn({ 4, 7 }):bfloat16(), fused.randn({ 7, 3 }):bfloat16()
    -- bfloat16 values widen exactly and their products are exact in float32: only the order of
    -- the float32 sums may differ from this float64 product.
    local want = fused.matmul(a:double(), b:double())
    local c = fused.zeros({ 4, 3 }, { device = 'cuda' })
    fused.ext.check(kernels().emu_gemm_ex(c, a:cuda(), b:cuda(), 0))
    helper.assert_close(c:cpu(), want:float(), 1e-6)
    err(function() fused.ext.check(kernels().emu_gemm_ex(c, a:cuda(), b:cuda(), 1)) end,
        'emu_gemm_ex', 'CUBLAS_STATUS_NOT_SUPPORTED')
  end)

  emulated_it('reads what a kernel wrote within bounds', function()
    local x = fused.tensor({ 5, 6, 7 }, { dtype = 'int64' }):cuda()
    local out = fused.zeros({ 3 }, { dtype = 'int64', device = 'cuda' })
    fused.ext.check(kernels().emu_read_past(out, x, 0))
    assert.are.same({ 5, 6, 7 }, out:cpu():totable())
  end)
end)
