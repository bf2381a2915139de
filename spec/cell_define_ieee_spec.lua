-- fused.cell.define keeps IEEE arithmetic: every kind of constant reaches the C (and the CUDA
-- text, spec/cell_define_cuda_spec.lua) as the same double; no rewrite changes a result for
-- -0.0, inf or NaN (x * 0, 0 / x, x - x, x / x, 0 + x, 0 - x); max and min propagate NaN as
-- PyTorch's maximum and minimum do; the kinks' gradients are PyTorch's autograd's.
local helper = require 'spec.helper'
local fused = helper.fused
local F = fused.cell
local codegen = require 'fused.cell.codegen'
local ieee = require 'spec.cell_ieee'

local cache = os.tmpname()

describe('fused.cell.define in IEEE arithmetic', function()
  teardown(function() os.execute('rm -rf ' .. cache .. '.d ' .. cache .. '.src'); os.remove(cache) end)

  it('writes every kind of constant as a C literal that reads back as the same double', function()
    local texts = ieee.literals(F.source(ieee.constants_cell(cache .. '.d')))
    local back = ieee.compiled(texts, 'c', cache)
    for i, v in ipairs(ieee.constants) do
      assert.is_true(ieee.same(back[i], v), texts[i] .. ' compiled as C')
      if v == v and math.abs(v) ~= math.huge then
        assert.is_true(ieee.same(tonumber(texts[i]), v), texts[i] .. ' read by Lua')
      end
    end
    assert.are.equal('-0.0', codegen.number(-0.0)) -- '-0' would be the integer 0
    assert.are.equal('0.1', codegen.number(0.1))
  end)

  for _, rule in ipairs(ieee.rules) do
    for _, dtype in ipairs({ 'float64', 'float32' }) do
      it(rule.name .. ': the step computes what IEEE arithmetic does, -0.0, inf and NaN too, in '
         .. dtype, function()
        local stderr = io.stderr
        io.stderr = helper.sink() -- the unused gate's warning
        local ok, cell = pcall(ieee.define, rule, cache .. '.d')
        io.stderr = stderr
        assert(ok, cell)
        local h, c, x = ieee.run(cell, ieee.edges, dtype)
        for i = 1, #x do
          assert.is_true(ieee.same(h[i], rule.lua.h(x[i])), string.format('h at %.17g: %.17g', x[i], h[i]))
          assert.is_true(ieee.same(c[i], rule.lua.c(x[i])), string.format('c at %.17g: %.17g', x[i], c[i]))
        end
      end)
    end
  end

  it('folds numbers as Lua does, and F of numbers is a number, NaN-propagating max and min too', function()
    assert.are.equal(0.5, F.max(0.5, -1))
    assert.is_true(F.max(0 / 0, 1) ~= F.max(0 / 0, 1))
    assert.is_true(F.min(1, 0 / 0) ~= F.min(1, 0 / 0))
    assert.is_true(ieee.same(F.tanh(-0.0), -0.0))
    assert.are.equal(0, F.relu(-3))
  end)

  for _, dtype in ipairs({ 'float64', 'float32' }) do
    it('the kinks have PyTorch\'s gradients (abs and relu 0 at 0, max and min half at a tie) in ' .. dtype, function()
      local stderr = io.stderr
      io.stderr = helper.sink()
      local ok, cell = pcall(F.define, { name = 'kinks', gates = 2, state = 'hc',
                                         cache_dir = cache .. '.d', step = ieee.kinks.step })
      io.stderr = stderr
      assert(ok, cell)
      local d_h0, d_c0 = ieee.kink_gradients(cell, dtype)
      for i = 1, 3 do
        assert.are.equal(ieee.kinks.d_h0[i], d_h0[1][i], 'd_h0 ' .. i)
        assert.are.equal(ieee.kinks.d_c0[i], d_c0[1][i], 'd_c0 ' .. i)
      end
    end)
  end
end)

