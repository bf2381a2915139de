-- The linear scan writes results larger than the last-level cache past the caches (streaming
-- stores, c/cpu/generic/scan.h): with fused_set_cpu_cache_bytes(1) every result streams, and
-- must match the PyTorch references (spec/data/scan) as the cached writes do, and equal them
-- bit for bit with coupled states (fused.linear_scan, S = 2 and 3), on every CPU vector path:
-- rows on vector boundaries (D = 32) stream, others (D = 21) fall back to plain stores.
local helper = require 'spec.helper'
local fused = helper.fused
local ref = require 'spec.cell_reference'
local C = require('fused.lib').C

local DATA = 'spec/data/scan/'

-- f() with the kernels taking the last-level cache as bytes (0: what the library read).
local function with_cache(bytes, f)
  C.fused_set_cpu_cache_bytes(bytes)
  local ok, err = pcall(f)
  C.fused_set_cpu_cache_bytes(0)
  assert(ok, err)
end

describe('streamed scan results', function()
  it('fused_set_cpu_cache_bytes sets what the kernels take and 0 restores what was read', function()
    local read = tonumber(C.fused_cpu_cache_bytes())
    assert.is_true(read >= 1024 * 1024, 'a last-level cache of ' .. read .. ' bytes')
    C.fused_set_cpu_cache_bytes(4096)
    assert.are.equal(4096, tonumber(C.fused_cpu_cache_bytes()))
    assert.are.equal(4096, fused.config().cpu_cache)
    C.fused_set_cpu_cache_bytes(0)
    assert.are.equal(read, tonumber(C.fused_cpu_cache_bytes()))
  end)

  it('fused.scan and its backward match the references, every CPU vector path', function()
    for _, path in ipairs(helper.runnable_cpu_paths()) do
      helper.under_cpu_capability(path, function()
        with_cache(1, function()
          for _, case in ipairs({ 'plain', 'reverse_ragged_resets', 'wide_long_resets' }) do
            local c = ref.config(DATA, case)
            local function get(name) return ref.load(DATA, case, name) end
            local opts = { lengths = c.lengths, resets = c.resets and get('resets') or nil,
                           reverse = c.reverse }
            local a, h0 = get('a'), c.h0 and get('h0') or nil
            local h = fused.scan(a, get('b'), h0, opts)
            local d_a, d_b, d_h0 = fused.scan_backward(get('r'), a, h, h0, opts)
            local got = { h = h, d_a = d_a, d_b = d_b, d_h0 = d_h0 }
            for name, t in pairs(got) do
              helper.assert_close(t, get(name), 1e-10, table.concat({ path, case, name }, ' '))
            end
          end
        end)
      end)
    end
  end)

  it('coupled states stream the same bits as they are written in cache, every CPU vector path',
     function()
    fused.manual_seed(3)
    for _, path in ipairs(helper.runnable_cpu_paths()) do
      helper.under_cpu_capability(path, function()
        for _, size in ipairs({ { 9, 3, 2, 32 }, { 7, 2, 3, 21 }, { 5, 2, 2, 300 } }) do
          local T, B, S, D = unpack(size)
          for _, dtype in ipairs({ 'float64', 'float32' }) do
            local A = fused.rand(T, B, S, S, D):mul_(0.5):to(dtype)
            local b, h0 = fused.randn(T, B, S, D):to(dtype), fused.randn(B, S, D):to(dtype)
            local d_h = fused.randn(T, B, S, D):to(dtype)
            local resets = fused.zeros(T, B, { dtype = 'bool' })
            resets[3][1] = true
            local opts = { lengths = { T, T - 2, T - 1 }, resets = resets, reverse = D == 21 }
            opts.lengths = { unpack(opts.lengths, 1, B) }
            local function run()
              local h = fused.linear_scan(A, b, h0, opts)
              return { h, fused.linear_scan_backward(d_h, A, h, h0, opts) }
            end
            local cached, streamed = run(), nil
            with_cache(1, function() streamed = run() end)
            for i = 1, 4 do
              assert.is_true(helper.bytes(cached[i]) == helper.bytes(streamed[i]),
                             string.format('%s %s %s result %d', path, dtype, table.concat(size, 'x'), i))
            end
          end
        end
      end)
    end
  end)
end)
