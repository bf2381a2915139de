-- User cells on the CUDA engine (emulated in make test): a fused.cell.define cell's generated
-- text compiled as CUDA, and a fused.ext.cell's cuda_sources, run by cuda/rnn.cu through the
-- device steps they register. Every example cell, 2 layers, bidirectional, ragged, equals the
-- same module on the CPU (float64 within 1e-12, float32 within 1e-5), and so does one
-- nn.RNNCell step; the LSTM, GRU and LLTM as definitions, and examples/custom_cell/lltm.cu,
-- equal the built-in cells on the device; mgu.cu equals mgu.c; a cell without CUDA steps, or
-- whose CUDA source does not build or lacks the steps, says so.
local helper = require 'spec.helper'
local fused = helper.fused
local F = fused.cell
local Fn = fused.functional
local close, err, gpu_it = helper.assert_close, helper.assert_error, helper.gpu_it

local cache = os.tmpname()

local function example(file)
  local def = dofile('examples/cells/' .. file .. '.lua')(F)
  def.cache_dir = cache .. '.d'
  return def
end

local run = helper.rnn_results
local ieee = require 'spec.cell_ieee'

describe('user cells on CUDA', function()
  teardown(function() os.execute('rm -rf ' .. cache .. '.d'); os.remove(cache) end)

  for _, file in ipairs({ 'mgu', 'janet', 'cifg_lstm', 'sru_dense', 'lltm', 'lstm', 'gru' }) do
    for _, dtype in ipairs({ 'float64', 'float32' }) do
      gpu_it(string.format('%s: nn.RNN, 2 layers, bidirectional, ragged, equals the CPU in %s',
                           file, dtype), function()
        local cell = F.define(example(file))
        fused.manual_seed(13)
        local o = { dtype = dtype }
        local T, B, I, H = 6, 5, 4, 7
        local cpu = fused.nn.RNN(I, H, { cell = cell, num_layers = 2, bidirectional = true, dtype = dtype })
        local gpu = fused.nn.RNN(I, H, { cell = cell, num_layers = 2, bidirectional = true, dtype = dtype })
        for name, p in cpu:named_parameters() do gpu[name]:copy(p) end
        gpu:cuda()
        local xs, d_hs = fused.randn({ T, B, I }, o), fused.randn({ T, B, 2 * H }, o)
        local h0, c0 = fused.randn({ 4, B, H }, o), cell.has_c and fused.randn({ 4, B, H }, o) or nil
        local lengths = { 6, 2, 5, 1, 6 }
        local want = run(cpu, xs, h0, c0, lengths, d_hs)
        local got = run(gpu, xs:cuda(), h0:cuda(), c0 and c0:cuda(), lengths, d_hs:cuda())
        assert.are.equal(#want, #got)
        local tol = dtype == 'float64' and 1e-12 or 1e-5
        for i = 1, #want do close(got[i], want[i], tol, file .. ' result ' .. i) end
      end)
    end
  end

  -- The built-in cells as definitions (examples/cells/lstm.lua, gru.lua, lltm.lua) against the
  -- built-in cells, both on the device, one layer each way over a ragged batch.
  for _, name in ipairs({ 'lstm', 'gru', 'lltm' }) do
    for _, dtype in ipairs({ 'float64', 'float32' }) do
      for _, reverse in ipairs({ false, true }) do
        gpu_it(string.format('%s as a definition equals the built-in %s on CUDA in %s%s', name,
                             name, dtype, reverse and ', reversed' or ''), function()
          local cell = F.define(example(name))
          fused.manual_seed(17)
          local o = { dtype = dtype, device = 'cuda' }
          local T, B, I, H, G = 5, 4, 3, 6, cell.gates
          local xs, h0 = fused.randn({ T, B, I }, o), fused.randn({ B, H }, o)
          local c0 = cell.has_c and fused.randn({ B, H }, o) or nil
          local w_ih, w_hh = fused.randn({ G * H, I }, o) * 0.5, fused.randn({ G * H, H }, o) * 0.5
          local b_ih, b_hh = fused.randn({ G * H }, o), fused.randn({ G * H }, o)
          local opts = { lengths = { 5, 2, 4, 1 }, reverse = reverse }
          local d_hs, d_hn = fused.randn({ T, B, H }, o), fused.randn({ B, H }, o)
          local d_cn = cell.has_c and fused.randn({ B, H }, o) or nil
          -- the built-in LLTM has one bias: the definition gets it and a zero b_hh
          local builtin_b_hh = name ~= 'lltm' and b_hh or nil
          if name == 'lltm' then b_hh = fused.zeros({ G * H }, o) end
          local theirs = { Fn.rnn_forward(name, xs, w_ih, w_hh, b_ih, builtin_b_hh, h0, c0, opts) }
          local ours = { Fn.rnn_forward(cell, xs, w_ih, w_hh, b_ih, b_hh, h0, c0, opts) }
          local tol = dtype == 'float64' and 1e-12 or 1e-5
          for i = 1, cell.has_c and 3 or 2 do close(ours[i]:cpu(), theirs[i]:cpu(), tol, 'output ' .. i) end
          local g_theirs = { Fn.rnn_backward(theirs[4], d_hs, d_hn, d_cn) }
          local g_ours = { Fn.rnn_backward(ours[4], d_hs, d_hn, d_cn) }
          for _, i in ipairs({ 1, 2, 3, 4, 5, 6, 7 }) do
            if g_theirs[i] and (i ~= 5 or name ~= 'lltm') then
              close(g_ours[i]:cpu(), g_theirs[i]:cpu(), tol, 'gradient ' .. i)
            end
          end
        end)
      end
    end
  end

  gpu_it('a fused.ext.cell with cuda_sources (mgu.cu: mgu.c as CUDA) equals its CPU steps', function()
    local mgu = fused.ext.cell { name = 'mgu_both', sources = { 'examples/custom_cell/mgu.c' },
      cuda_sources = { 'examples/custom_cell/mgu.cu' }, step = 'mgu', gates = 2, state = 'h',
      saved = 6, d_ih = 3, cache_dir = cache .. '.d' }
    fused.manual_seed(19)
    local o = { dtype = 'float64' }
    local cpu = fused.nn.RNN(3, 5, { cell = mgu, num_layers = 2, bidirectional = true, dtype = 'float64' })
    local gpu = fused.nn.RNN(3, 5, { cell = mgu, num_layers = 2, bidirectional = true, dtype = 'float64' })
    for name, p in cpu:named_parameters() do gpu[name]:copy(p) end
    gpu:cuda()
    local xs, d_hs, h0 = fused.randn({ 4, 3, 3 }, o), fused.randn({ 4, 3, 10 }, o), fused.randn({ 4, 3, 5 }, o)
    local want = run(cpu, xs, h0, nil, { 4, 1, 3 }, d_hs)
    local got = run(gpu, xs:cuda(), h0:cuda(), nil, { 4, 1, 3 }, d_hs:cuda())
    for i = 1, #want do close(got[i], want[i], 1e-12, 'result ' .. i) end
  end)

  gpu_it('the user LLTM (lltm.cu: lltm.c as CUDA) equals the built-in LLTM on CUDA, float64 within 1e-12', function()
    local lltm = fused.ext.cell { name = 'user_lltm_both', sources = { 'examples/custom_cell/lltm.c' },
      cuda_sources = { 'examples/custom_cell/lltm.cu' }, step = 'lltm', gates = 3, state = 'hc',
      saved = 5, cache_dir = cache .. '.d' }
    fused.manual_seed(23)
    local o = { dtype = 'float64', device = 'cuda' }
    local T, B, I, H = 5, 4, 3, 6
    local xs, h0, c0 = fused.randn({ T, B, I }, o), fused.randn({ B, H }, o), fused.randn({ B, H }, o)
    local w_ih, w_hh = fused.randn({ 3 * H, I }, o) * 0.5, fused.randn({ 3 * H, H }, o) * 0.5
    local b, zero = fused.randn({ 3 * H }, o), fused.zeros({ 3 * H }, o)
    local opts = { lengths = { 5, 2, 4, 1 }, reverse = true }
    local d_hs, d_hn, d_cn = fused.randn({ T, B, H }, o), fused.randn({ B, H }, o), fused.randn({ B, H }, o)
    local ours = { Fn.rnn_forward('lltm', xs, w_ih, w_hh, b, nil, h0, c0, opts) }
    local theirs = { Fn.rnn_forward(lltm, xs, w_ih, w_hh, b, zero, h0, c0, opts) }
    for i = 1, 3 do close(theirs[i]:cpu(), ours[i]:cpu(), 1e-12, 'output ' .. i) end
    local g_ours = { Fn.rnn_backward(ours[4], d_hs, d_hn, d_cn) }
    local g_theirs = { Fn.rnn_backward(theirs[4], d_hs, d_hn, d_cn) }
    for _, i in ipairs({ 1, 2, 3, 4, 6, 7 }) do -- all but d_b_hh, which the LLTM has not
      close(g_theirs[i]:cpu(), g_ours[i]:cpu(), 1e-12, 'gradient ' .. i)
    end
  end)

  gpu_it('nn.RNNCell over a defined cell: one step on CUDA equals the CPU, float64 within 1e-12', function()
    local cell = F.define(example('cifg_lstm'))
    fused.manual_seed(29)
    local o = { dtype = 'float64' }
    local cpu = fused.nn.RNNCell(3, 5, { cell = cell, dtype = 'float64' })
    local gpu = fused.nn.RNNCell(3, 5, { cell = cell, dtype = 'float64' })
    for name, p in cpu:named_parameters() do gpu[name]:copy(p) end
    gpu:cuda()
    local x, h, c = fused.randn({ 4, 3 }, o), fused.randn({ 4, 5 }, o), fused.randn({ 4, 5 }, o)
    local want = { cpu:forward(x, h, c) }
    local got = { gpu:forward(x:cuda(), h:cuda(), c:cuda()) }
    for i = 1, 2 do close(got[i]:cpu(), want[i], 1e-12, 'state ' .. i) end
  end)

  gpu_it('F.source is the text compiled for both: as C for the CPU, as CUDA for the device', function()
    local cell = F.define(example('janet'))
    local m = fused.nn.RNN(2, 3, { cell = cell }):cuda()
    m:forward(fused.randn({ 2, 1, 2 }):cuda())
    local found = 0
    for _, ext in ipairs({ 'c', 'cu' }) do
      local p = io.popen('ls ' .. cache .. '.d/janet/janet-*.' .. ext)
      for path in p:lines() do
        local f = io.open(path, 'rb')
        if f:read('*a') == F.source(cell) then found = found + 1 end
        f:close()
      end
      p:close()
    end
    assert.are.equal(2, found)
  end)

  describe('errors', function()
    gpu_it('a fused.ext.cell without cuda_sources, on CUDA, names the cell and the remedy', function()
      local mgu = fused.ext.cell { name = 'mgu_cpu', sources = { 'examples/custom_cell/mgu.c' },
        step = 'mgu', gates = 2, state = 'h', saved = 6, d_ih = 3, cache_dir = cache .. '.d' }
      local m = fused.nn.RNN(3, 4, { cell = mgu }):cuda()
      err(function() m:forward(fused.randn({ 2, 2, 3 }):cuda(), fused.zeros({ 1, 2, 4 }):cuda()) end,
          "rnn_forward: the mgu_cpu cell has no CUDA steps, got 'xs' on cuda (a fused.cell.define "
          .. 'cell builds them on its first CUDA run; a fused.ext.cell needs cuda_sources: '
          .. 'docs/extending.md)')
    end)

    -- The error of a forward on CUDA through an ext cell named name whose CUDA source is text.
    local function cuda_source_error(name, text)
      local path = cache .. '.' .. name .. '.cu'
      local f = io.open(path, 'w')
      f:write('#include <fused_ext.h>\n' .. text)
      f:close()
      local cell = fused.ext.cell { name = name, sources = { 'examples/custom_cell/mgu.c' },
        cuda_sources = { path }, step = 'mgu', gates = 2, state = 'h', saved = 6, d_ih = 3,
        cache_dir = cache .. '.d' }
      local m = fused.nn.RNN(3, 4, { cell = cell }):cuda()
      local ok, msg = pcall(m.forward, m, fused.randn({ 2, 2, 3 }):cuda(), fused.zeros({ 1, 2, 4 }):cuda())
      os.remove(path)
      assert.is_false(ok)
      return tostring(msg), path
    end

    gpu_it('a CUDA source that does not compile gives the compiler\'s message, naming the file', function()
      local msg, path = cuda_source_error('bad_cuda',
        'FUSED_CELL_FORWARD(bad, { VEC_FOR(H, j, m, { vstore(out + j, no_such_thing, m); }) })\n')
      assert.is_truthy(msg:find('fused.ext.cell: compiling ' .. path .. ' failed', 1, true), msg)
      assert.is_truthy(msg:find('no_such_thing', 1, true), msg)
    end)

    gpu_it('CUDA sources without the cell\'s steps name the missing function', function()
      local msg = cuda_source_error('nosteps_cuda', '')
      assert.is_truthy(msg:find("fused.ext.cell: nosteps_cuda's cuda_sources define no "
        .. 'mgu_cuda_forward_f32', 1, true), msg)
    end)
  end)
  -- IEEE arithmetic as on the CPU (spec/cell_define_ieee_spec.lua): the constants' literals
  -- compiled as CUDA, the rules that folding must not change, the kinks' gradients.
  gpu_it('every kind of constant, compiled as CUDA, reads back as the same double', function()
    local texts = ieee.literals(F.source(ieee.constants_cell(cache .. '.d')))
    local back = ieee.compiled(texts, 'cu', cache)
    for i, v in ipairs(ieee.constants) do assert.is_true(ieee.same(back[i], v), texts[i]) end
  end)

  for _, rule in ipairs(ieee.rules) do
    for _, dtype in ipairs({ 'float64', 'float32' }) do
      gpu_it(rule.name .. ': -0.0, inf and NaN give the CPU\'s results on CUDA in ' .. dtype, function()
        local stderr = io.stderr
        io.stderr = helper.sink() -- the unused gate's warning
        local ok, cell = pcall(ieee.define, rule, cache .. '.d')
        io.stderr = stderr
        assert(ok, cell)
        local h, c = ieee.run(cell, ieee.edges, dtype)
        local dh, dc = ieee.run(cell, ieee.edges, dtype, 'cuda')
        for i = 1, #ieee.edges do
          assert.is_true(ieee.same(dh[i], h[i]), 'h ' .. i)
          assert.is_true(ieee.same(dc[i], c[i]), 'c ' .. i)
        end
      end)
    end
  end

  gpu_it('the kinks have PyTorch\'s gradients on CUDA', function()
    local stderr = io.stderr
    io.stderr = helper.sink()
    local ok, cell = pcall(F.define, { name = 'kinks', gates = 2, state = 'hc',
                                       cache_dir = cache .. '.d', step = ieee.kinks.step })
    io.stderr = stderr
    assert(ok, cell)
    for _, dtype in ipairs({ 'float64', 'float32' }) do
      local d_h0, d_c0 = ieee.kink_gradients(cell, dtype, 'cuda')
      for i = 1, 3 do
        assert.are.equal(ieee.kinks.d_h0[i], d_h0[1][i], 'd_h0 ' .. i)
        assert.are.equal(ieee.kinks.d_c0[i], d_c0[1][i], 'd_c0 ' .. i)
      end
    end
  end)
  gpu_it('a large cell (compiled without the passes slowest on it) equals the CPU on CUDA', function()
    local stderr = io.stderr
    io.stderr = helper.sink() -- its progress lines
    local ok, cell = pcall(F.define, { name = 'large', gates = 1, state = 'h', cache_dir = cache .. '.d',
      step = function(gx, gh, h)
        local x = gx[1] + gh[1] + h
        for i = 1, 120 do x = F.relu(x) * (1 + i / 1024) end
        return x
      end })
    io.stderr = stderr
    assert(ok, cell)
    assert.is_truthy(F.source(cell):find('#pragma GCC optimize', 1, true))
    fused.manual_seed(5)
    local o = { dtype = 'float64' }
    local args = { fused.randn({ 3, 2, 2 }, o), fused.randn({ 4, 2 }, o), fused.randn({ 4, 4 }, o),
                   fused.randn({ 4 }, o), fused.randn({ 4 }, o), fused.randn({ 2, 4 }, o) }
    local want = { Fn.rnn_forward(cell, unpack(args)) }
    for i, t in ipairs(args) do args[i] = t:cuda() end
    local got = { Fn.rnn_forward(cell, unpack(args)) }
    for i = 1, 2 do close(got[i]:cpu(), want[i], 1e-12, 'output ' .. i) end
  end)
end)
