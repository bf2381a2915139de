-- The GEMM chooser (c/cpu/gemm_choice.c, gemm_wisdom.c): fused.set_gemm and FUSED_GEMM pick
-- the library of the CPU's products (the sequence engine's per-step ones may run on its packed
-- kernel), every provider gives the same results within float32 rounding (float64 runs on
-- OpenBLAS under each, but its per-step products and weight gradients on the packed kernel
-- under 'packed'), and
-- auto's measurements live in a
-- wisdom file that is written 0600 in a 0700 folder and read defensively: a corrupt, stale,
-- foreign or planted file is ignored or refused, never trusted, never a crash.
local ffi = require 'ffi'
local helper = require 'spec.helper'
local fused = helper.fused
local err = helper.assert_error
local under_gemm = helper.under_gemm

local has_onednn = fused.config().gemm_providers:find('onednn', 1, true) ~= nil
local providers = has_onednn and { 'openblas', 'onednn', 'packed' } or { 'openblas', 'packed' }

local shell = helper.shell

-- A fresh cache folder (XDG_CACHE_HOME) for a child; the wisdom file is dir/fused/gemm-wisdom.
local function fresh_cache()
  local dir = shell('mktemp -d')
  return dir, dir .. '/fused', dir .. '/fused/gemm-wisdom'
end

-- A child under FUSED_GEMM=auto with the cache folder dir: runs one product on one thread that
-- is measured (64³ multiply-adds), checks it against float64, prints the wisdom line and the
-- choices; env: more of the child's environment, or nil.
local function auto_child(dir, env)
  return helper.child([[
    fused.set_num_threads(1)
    fused.manual_seed(0)
    local a, b = fused.randn({ 64, 64 }), fused.randn({ 64, 64 })
    local want = a:double():matmul(b:double())
    assert(helper.rel_error(a:matmul(b):double(), want) < 1e-5, 'wrong product')
    print('wisdom: ' .. fused.config().gemm_wisdom)
    print('choices: ' .. fused.config().gemm_choices)
  ]], string.format('FUSED_GEMM=auto XDG_CACHE_HOME=%s HOME=%s %s', dir, dir, env or ''))
end

local function write(path, text)
  local f = assert(io.open(path, 'wb'))
  f:write(text)
  f:close()
end

-- The fingerprint line this machine writes, from a file a child wrote.
local function header(path)
  return helper.read(path):match('^[^\n]*\n')
end

describe('fused.set_gemm', function()
  it('is shown in fused.config() with the providers the build has', function()
    local c = fused.config()
    assert.is_truthy(({ openblas = 1, onednn = 1, packed = 1, auto = 1 })[c.gemm])
    assert.is_truthy(c.gemm_providers:find('^openblas'))
    assert.is_truthy(c.gemm_providers:find(', packed$'))
    assert.is_truthy(tostring(c):find('| GEMM: ' .. c.gemm, 1, true))
    for _, name in ipairs(providers) do
      under_gemm(name, function() assert.equal(name, fused.config().gemm) end)
    end
  end)

  it('refuses an unknown name, in Lua and in FUSED_GEMM at load', function()
    err(function() fused.set_gemm('mkl') end,
        "set_gemm: argument 'name' expected openblas, onednn, packed or auto, got 'mkl'")
    err(function() fused.set_gemm(1) end, "set_gemm: argument 'name' expected a string, got number")
    local out = helper.child("print('loaded')", 'FUSED_GEMM=mkl')
    assert.is_nil(out:find('loaded', 1, true), out)
    assert.is_truthy(out:find("fused: FUSED_GEMM: set_gemm: argument 'name' expected openblas, "
                              .. "onednn, packed or auto, got 'mkl'", 1, true), out)
  end)

  it('gives matmul, addmm and Linear within float32 rounding of float64 under each provider',
     function()
    fused.manual_seed(1)
    local a, b, bias = fused.randn({ 70, 130 }), fused.randn({ 130, 90 }), fused.randn({ 90 })
    local want = fused.addmm(bias:double(), a:double(), b:double(), { beta = 0.5, alpha = 2 })
    local t_want = a:double():t():contiguous():t():matmul(b:double():t():contiguous():t())
    for _, name in ipairs(providers) do
      under_gemm(name, function()
        local got = fused.addmm(bias, a, b, { beta = 0.5, alpha = 2 })
        assert(helper.rel_error(got:double(), want) < 1e-5, name .. ': addmm')
        -- Transposed operands (BLAS's 'T').
        local tt = a:t():contiguous():t():matmul(b:t():contiguous():t())
        assert(helper.rel_error(tt:double(), t_want) < 1e-5, name .. ': transposed matmul')
        local lin = fused.nn.Linear(130, 90)
        lin.weight:copy(b:t())
        lin.bias:copy(bias)
        assert(helper.rel_error(lin:forward(a):double(), a:double():matmul(b:double())
                                + bias:double()) < 1e-5, name .. ': Linear')
      end)
    end
  end)

  it('gives its C functions checked arguments', function()
    local C = fused.C
    assert.equal(-1, tonumber(C.fused_gemm_calls(nil)))
    assert.equal("gemm_calls: argument 'provider' expected openblas, onednn or packed, got NULL",
                 ffi.string(C.fused_last_error()))
    assert.equal(-1, tonumber(C.fused_gemm_calls('auto')))
    assert.equal("gemm_calls: argument 'provider' expected openblas, onednn or packed, got 'auto'",
                 ffi.string(C.fused_last_error()))
    -- The choices need n bytes and a buffer too small gets "".
    local n = tonumber(C.fused_gemm_choices(nil, 0))
    local buf = ffi.new('char[?]', n + 1, 1)
    assert.equal(n, tonumber(C.fused_gemm_choices(buf, n)))
    assert.equal(n == 0 and 1 or 0, buf[0])
  end)

  it('writes beta·bias, zeros for matmul, where the inner size is 0, under each provider',
     function()
    -- oneDNN's sgemm leaves C as it was at k = 0 (uninitialised memory for matmul).
    local a, b, bias = fused.empty({ 3, 0 }), fused.empty({ 0, 4 }), fused.ones({ 3, 4 })
    for _, name in ipairs(providers) do
      under_gemm(name, function()
        local out = fused.full({ 3, 4 }, 0 / 0)
        fused.matmul(a, b, { out = out })
        assert.are.same(fused.zeros({ 3, 4 }):totable(), out:totable(), name)
        local got = fused.addmm(bias, a, b, { beta = 2 })
        assert.are.same(fused.full({ 3, 4 }, 2):totable(), got:totable(), name)
      end)
    end
  end)

  it('runs the products on the provider it names, float64 on OpenBLAS', function()
    local a, b = fused.randn({ 64, 64 }), fused.randn({ 64, 64 })
    for _, name in ipairs(providers) do
      for _, dtype in ipairs({ 'float32', 'float64' }) do
        local ran = (dtype == 'float64' or name == 'packed') and 'openblas' or name
        local before = fused.config().gemm_calls
        under_gemm(name, function() a:to(dtype):matmul(b:to(dtype)) end)
        local after = fused.config().gemm_calls
        for _, p in ipairs({ 'openblas', 'onednn', 'packed' }) do
          assert.equal(before[p] + (p == ran and 1 or 0), after[p], name .. ' ' .. dtype .. ' ' .. p)
        end
      end
    end
  end)

  it("runs the sequence engine's per-step products on the provider it names", function()
    -- T = 5 steps, forward and backward: 10 per-step products on one thread (B = 3 is below a
    -- second thread's rows); the products over all steps on BLAS, the weight gradients on the
    -- provider too (the packed kernel under 'packed').
    local threads = fused.get_num_threads()
    fused.set_num_threads(1)
    for _, name in ipairs(providers) do
      for _, dtype in ipairs({ 'float32', 'float64' }) do
        local on = (name == 'onednn' and dtype == 'float64') and 'openblas' or name
        local m = fused.nn.LSTM(16, 32, { dtype = dtype })
        local xs = fused.randn({ 5, 3, 16 }, { dtype = dtype })
        local before = fused.config().gemm_calls
        under_gemm(name, function()
          m:forward(xs)
          m:backward(fused.ones({ 5, 3, 32 }, { dtype = dtype }))
        end)
        local after = fused.config().gemm_calls
        local steps = after[on] - before[on] - (on == 'packed' and 2 or 4)
        assert.equal(10, steps, name .. ' ' .. dtype)
        if on == 'packed' then
          assert.equal(before.onednn, after.onednn, name .. ' ' .. dtype .. ': onednn')
        end
      end
    end
    fused.set_num_threads(threads)
  end)

  it('puts the weight gradients on the packed kernel only where the setting lets it', function()
    -- LSTM(32, 32), T·B = 256 rows: d_w_ih and d_w_hh (128×32, rnn_weight_grad) on the packed
    -- kernel under 'packed' only; 16 steps forward and backward on one thread.
    local threads = fused.get_num_threads()
    fused.set_num_threads(1)
    local want = { openblas = 0, onednn = 0, packed = 32 + 2 }
    for _, name in ipairs(providers) do
      local m = fused.nn.LSTM(32, 32)
      local xs = fused.randn({ 16, 16, 32 })
      local before = fused.config().gemm_calls
      under_gemm(name, function()
        m:forward(xs)
        m:backward(fused.ones({ 16, 16, 32 }))
      end)
      assert.equal(want[name], fused.config().gemm_calls.packed - before.packed, name)
    end
    fused.set_num_threads(threads)
  end)

  it('gives the LSTM and GRU the same training step within float32 rounding, float64 within 1e-12',
     function()
    for _, class in ipairs({ 'LSTM', 'GRU' }) do
      for _, dtype in ipairs({ 'float32', 'float64' }) do
        local results = {}
        for i, name in ipairs(providers) do
          results[i] = under_gemm(name, function()
            fused.manual_seed(4)
            local o = { dtype = dtype }
            local m = fused.nn[class](24, 40, o)
            local xs, d_hs = fused.randn({ 12, 33, 24 }, o), fused.randn({ 12, 33, 40 }, o)
            -- A ragged batch: the per-step products gather the rows that run the step.
            local lengths = {}
            for b = 1, 33 do lengths[b] = 1 + (b * 7) % 12 end
            return helper.rnn_results(m, xs, nil, nil, lengths, d_hs)
          end)
        end
        for i = 2, #results do
          for k, t in ipairs(results[i]) do
            local e = helper.rel_error(t, results[1][k])
            local bound = dtype == 'float64' and 1e-12 or 1e-5
            assert(e <= bound, string.format('%s %s output %d under %s: %.3g from openblas',
                                             class, dtype, k, providers[i], e))
          end
        end
      end
    end
  end)
end)

-- n lines of distinct classes.
local function many_classes(n)
  local lines = {}
  for i = 0, n - 1 do
    lines[#lines + 1] = string.format('float32 NN %d %d 6 1 onednn\n', i % 63, math.floor(i / 63))
  end
  return table.concat(lines)
end

describe('the wisdom file of FUSED_GEMM=auto', function()
  if not has_onednn then
    it('is not needed without oneDNN: auto is OpenBLAS', function()
      local dir = fresh_cache()
      assert.is_truthy(auto_child(dir):find('choices: \n', 1, true))
      os.execute('rm -rf ' .. dir)
    end)

    it('ignores a class on oneDNN, which this build lacks', function()
      -- Its products would run on OpenBLAS while gemm_choices said oneDNN.
      local dir, folder, path = fresh_cache()
      local step = [[
        fused.set_num_threads(1)
        fused.nn.GRU(8, 128):forward(fused.randn({ 3, 16, 8 }))
        print('wisdom: ' .. fused.config().gemm_wisdom)
      ]]
      local env = string.format('FUSED_GEMM=auto XDG_CACHE_HOME=%s HOME=%s', dir, dir)
      helper.child(step, env)
      write(path, header(path) .. 'float32 NP 4 8 7 1 onednn\n')
      local out = helper.child(step, env)
      assert.is_truthy(out:find('(1 classes; ignored: line 2 is not a shape class', 1, true), out)
      os.execute('rm -rf ' .. dir)
    end)
    return
  end

  it('is written 0600 in a 0700 folder after a measurement, then read back', function()
    local dir, folder, path = fresh_cache()
    local out = auto_child(dir)
    assert.is_truthy(out:find('wisdom: ' .. path .. ' (1 classes)', 1, true), out)
    assert.is_truthy(out:find('choices: float32 NN ~64x64x64 t1: %a+\n'), out)
    assert.equal('600', shell('stat -c %a ' .. path))
    assert.equal('700', shell('stat -c %a ' .. folder))
    local text = helper.read(path)
    assert.is_truthy(text:find('^fused%-gemm%-wisdom 2 %x+\nfloat32 NN 6 6 6 1 %a+\n$'), text)
    -- Read back: the same class, no second measurement (the file is not rewritten).
    local mtime = shell('stat -c %Y.%y ' .. path)
    out = auto_child(dir)
    assert.is_truthy(out:find('(1 classes)', 1, true), out)
    assert.equal(mtime, shell('stat -c %Y.%y ' .. path))
    os.execute('rm -rf ' .. dir)
  end)

  it("measures the per-step products' classes apart, float64's too, with the packed kernel",
     function()
    local dir, folder, path = fresh_cache()
    local out = helper.child([[
      fused.set_num_threads(1)
      for _, dtype in ipairs({ 'float32', 'float64' }) do
        local m = fused.nn.GRU(8, 128, { dtype = dtype })
        m:forward(fused.randn({ 3, 16, 8 }, { dtype = dtype }))
      end
      print('choices: ' .. fused.config().gemm_choices)
    ]], string.format('FUSED_GEMM=auto XDG_CACHE_HOME=%s HOME=%s', dir, dir))
    -- The step: 16 rows × 384 × 128 on one thread.
    assert.is_truthy(out:find('float32 NP ~16x256x128 t1: %a+'), out)
    assert.is_truthy(out:find('float64 NP ~16x256x128 t1: %a+'), out)
    assert.is_nil(out:find('float64 NP ~16x256x128 t1: onednn', 1, true), out)
    local text = helper.read(path)
    assert.is_truthy(text:find('\nfloat32 NP 4 8 7 1 %a+\n'), text)
    assert.is_truthy(text:find('\nfloat64 NP 4 8 7 1 %a+\n'), text)
    -- Read back, each provider the file names runs the step (the same output).
    local head, want = header(path), nil
    for _, name in ipairs(providers) do
      write(path, head .. 'float32 NP 4 8 7 1 ' .. name .. '\n')
      out = helper.child([[
        fused.set_num_threads(1)
        fused.manual_seed(3)
        local m = fused.nn.GRU(8, 128)
        local before = fused.config().gemm_calls.]] .. name .. [[

        local hs = m:forward(fused.randn({ 3, 16, 8 }))
        print(string.format('calls %d sum %.10f', fused.config().gemm_calls.]] .. name
          .. [[ - before, hs:double():sum()))
      ]], string.format('FUSED_GEMM=auto XDG_CACHE_HOME=%s HOME=%s', dir, dir))
      local calls, sum = out:match('calls (%d+) sum (%S+)')
      assert.is_truthy(tonumber(calls) >= 3, name .. ': ' .. out)
      want = want or tonumber(sum)
      assert(math.abs(tonumber(sum) - want) < 1e-3, name .. ': ' .. sum .. ' against ' .. want)
    end
    os.execute('rm -rf ' .. dir)
  end)

  it("measures the weight gradients' classes with the packed kernel, and runs the file's pick",
     function()
    -- LSTM(32, 32) on one thread, T·B = 256 rows: d_w_ih and d_w_hh are 128×32 over 256 rows,
    -- one "TP" class (a transposed d_gates, the packed kernel a candidate).
    local dir, folder, path = fresh_cache()
    local run = [[
      fused.set_num_threads(1)
      local results = {}
      for _, dtype in ipairs({ 'float32', 'float64' }) do
        fused.manual_seed(5)
        local o = { dtype = dtype }
        local m = fused.nn.LSTM(32, 32, o)
        local before = fused.config().gemm_calls
        m:forward(fused.randn({ 16, 16, 32 }, o))
        m:backward(fused.randn({ 16, 16, 32 }, o))
        local after = fused.config().gemm_calls
        print(string.format('%s packed %d onednn %d sum %.10f', dtype, after.packed - before.packed,
                            after.onednn - before.onednn,
                            m.grad.weight_ih_l0:double():sum() + m.grad.weight_hh_l0:double():sum()))
      end
      print('choices: ' .. fused.config().gemm_choices)
    ]]
    local env = string.format('FUSED_GEMM=auto XDG_CACHE_HOME=%s HOME=%s', dir, dir)
    local out = helper.child(run, env)
    assert.is_truthy(out:find('float32 TP ~128x32x256 t1: %a+'), out)
    assert.is_truthy(out:find('float64 TP ~128x32x256 t1: %a+'), out)
    assert.is_nil(out:find('float64 TP ~128x32x256 t1: onednn', 1, true), out)
    assert.is_truthy(helper.read(path):find('\nfloat32 TP 7 5 8 1 %a+\n'), path)
    -- Read back with the other classes on OpenBLAS: the weight gradients (2 products a
    -- backward) run on the provider the file names, with the same sums.
    local head, want = header(path), nil
    local function on(dtype, name) -- oneDNN has no float64 GEMM
      return (dtype == 'float64' and name == 'onednn') and 'openblas' or name
    end
    local others = 'NP 4 7 5 1 openblas\nNP 4 5 7 1 openblas\nNN 8 7 5 1 openblas\n'
      .. 'NN 8 5 7 1 openblas\n'
    for _, name in ipairs(providers) do
      local lines = {}
      for _, dtype in ipairs({ 'float32', 'float64' }) do
        lines[#lines + 1] = (dtype .. ' ' .. others):gsub('\nN', '\n' .. dtype .. ' N')
        lines[#lines + 1] = dtype .. ' TP 7 5 8 1 ' .. on(dtype, name) .. '\n'
      end
      write(path, head .. table.concat(lines))
      out = helper.child(run, env)
      for _, dtype in ipairs({ 'float32', 'float64' }) do
        local ran = on(dtype, name)
        local packed, onednn, sum = out:match(dtype .. ' packed (%d+) onednn (%d+) sum (%S+)')
        local what = name .. ' ' .. dtype .. ': ' .. out
        assert.equal(ran == 'packed' and 2 or 0, tonumber(packed), what)
        assert.equal(ran == 'onednn' and 2 or 0, tonumber(onednn), what)
        want = want or {}
        want[dtype] = want[dtype] or tonumber(sum)
        assert(math.abs(tonumber(sum) - want[dtype]) < 1e-4 * math.abs(want[dtype]) + 1e-3,
               name .. ' ' .. dtype .. ': ' .. sum .. ' against ' .. want[dtype])
      end
    end
    os.execute('rm -rf ' .. dir)
  end)

  it('measures afresh on another vector path (the packed kernel differs there)', function()
    local dir, folder, path = fresh_cache()
    local out = auto_child(dir, 'FUSED_CPU_CAPABILITY=default')
    assert.is_truthy(out:find('(1 classes)', 1, true), out)
    local on_default = header(path)
    out = auto_child(dir, 'FUSED_CPU_CAPABILITY=' .. fused.config().cpu_capability)
    if fused.config().cpu_capability ~= 'default' then
      assert.is_truthy(out:find('stale: measured on another CPU or with other libraries', 1, true),
                       out)
      assert.are_not.equal(on_default, header(path))
    end
    os.execute('rm -rf ' .. dir)
  end)

  it('uses the provider the file names for a class', function()
    local dir, folder, path = fresh_cache()
    auto_child(dir)
    local head = header(path)
    for _, name in ipairs(providers) do
      if name == 'packed' then break end -- only a shared operand's class (below)
      write(path, head .. 'float32 NN 6 6 6 1 ' .. name .. '\n')
      local out = auto_child(dir)
      assert.is_truthy(out:find('choices: float32 NN ~64x64x64 t1: ' .. name .. '\n', 1, true), out)
    end
    os.execute('rm -rf ' .. dir)
  end)

  it('ignores a corrupt, stale or oversized file and writes a good one over it', function()
    local dir, folder, path = fresh_cache()
    auto_child(dir)
    local head = header(path)
    local cases = {
      { 'garbage\n', 'ignored: not a wisdom file' },
      { head .. 'float32 NN 6 6 6 1 onednn', 'ignored: not a wisdom file' }, -- no final newline
      { head .. 'float32 NN 6 6 6 1 mkl\n', 'ignored: line 2 is not a shape class' },
      { head .. 'float32 NX 6 6 6 1 onednn\n', 'ignored: line 2 is not a shape class' },
      { head .. 'float32 NN 6 6 99 1 onednn\n', 'ignored: line 2 is not a shape class' },
      { head .. 'float32 NN 6 6 6 0 onednn\n', 'ignored: line 2 is not a shape class' },
      { head .. 'float32 NN 6 6 6 1 onednn \n', 'ignored: line 2 is not a shape class' },
      { head .. 'float32 NN  6 6 6 1 onednn\n', 'ignored: line 2 is not a shape class' },
      { head .. 'float32 NN 06 6 6 1 onednn\n', 'ignored: line 2 is not a shape class' },
      { head .. 'float32 NN 6 6 6 99999999999 onednn\n', 'ignored: line 2 is not a shape class' },
      { head .. 'float32 NN 6 6 6 1onednn\n', 'ignored: line 2 is not a shape class' },
      { head .. '\n', 'ignored: line 2 is not a shape class' },
      { head .. 'float32 NN 6 6 6 1 onednn\0\n', 'ignored: not a wisdom file' },
      { head .. many_classes(600), 'ignored: line 514 is not a shape class' },
      { 'fused-gemm-wisdom 2 0000000000000000\nfloat32 NN 6 6 6 1 onednn\n', 'stale: measured on another' },
      -- The format of fused before the per-step classes (no dtype).
      { 'fused-gemm-wisdom 1 0000000000000000\nNN 6 6 6 1 onednn\n', 'stale: written by another version' },
      { head .. 'float16 NN 6 6 6 1 onednn\n', 'ignored: line 2 is not a shape class' },
      -- Only a shared operand may be packed; oneDNN has no float64 GEMM.
      { head .. 'float32 NN 6 6 6 1 packed\n', 'ignored: line 2 is not a shape class' },
      { head .. 'float64 NP 6 6 6 1 onednn\n', 'ignored: line 2 is not a shape class' },
      { head .. ('x'):rep(70000) .. '\n', 'ignored: larger than any wisdom file' },
      -- A class twice (planted: a save never writes one): which line was meant is not known.
      { head .. 'float32 NN 6 6 6 1 onednn\nfloat32 NN 6 6 6 1 openblas\n', 'ignored: line 3 repeats the class of line 2' },
    }
    for _, case in ipairs(cases) do
      write(path, case[1])
      local out = auto_child(dir)
      assert.is_truthy(out:find('wisdom: ' .. path .. ' (1 classes; ' .. case[2], 1, true), out)
      -- The measurement made instead is stored over it.
      assert.is_truthy(helper.read(path):find('^fused%-gemm%-wisdom 2 %x+\nfloat32 NN 6 6 6 1 %a+\n$'))
    end
    os.execute('rm -rf ' .. dir)
  end)

  it('keeps the classes another process stored since this one loaded', function()
    local dir, folder, path = fresh_cache()
    auto_child(dir)
    local head = header(path)
    -- The child loads the file (one class), then another process stores a second class; the
    -- child's next measurement is saved with both, not over them.
    local out = helper.child(string.format([[
      fused.set_num_threads(1)
      local a = fused.randn({ 64, 64 })
      a:matmul(a)
      local f = assert(io.open(%q, 'wb'))
      f:write(%q)
      f:close()
      fused.randn({ 128, 64 }):matmul(a)
      print('choices: ' .. fused.config().gemm_choices)
    ]], path, head .. 'float32 NN 6 6 6 1 openblas\nfloat32 NN 9 9 9 1 openblas\n'),
      string.format('FUSED_GEMM=auto XDG_CACHE_HOME=%s HOME=%s', dir, dir))
    assert.is_truthy(out:find('float32 NN ~512x512x512 t1: openblas', 1, true), out)
    local text = helper.read(path)
    assert.is_truthy(text:find('\nfloat32 NN 6 6 6 1 %a+\n'), text)
    assert.is_truthy(text:find('\nfloat32 NN 7 6 6 1 %a+\n'), text)
    assert.is_truthy(text:find('\nfloat32 NN 9 9 9 1 openblas\n', 1, true), text)
    os.execute('rm -rf ' .. dir)
  end)

  it('saves over a file replaced since its read by a link, a FIFO or a foreign file', function()
    -- The save renames its own file over the path: never written through the link, never
    -- blocked on the FIFO, the foreign classes not taken in.
    local dir, folder, path = fresh_cache()
    local target = dir .. '/target'
    write(target, 'not wisdom\n')
    local foreign = "printf 'fused-gemm-wisdom 2 0000000000000000\\nfloat32 NN 9 9 9 1 openblas\\n' > "
    for _, replace in ipairs({ 'ln -s ' .. target .. ' ' .. path, 'mkfifo ' .. path, foreign .. path }) do
      os.execute('rm -f ' .. path)
      local out = helper.child(string.format([[
        fused.set_num_threads(1)
        local a = fused.randn({ 64, 64 })
        a:matmul(a)
        os.execute(%q)
        fused.randn({ 128, 64 }):matmul(a)
        print('choices: ' .. fused.config().gemm_choices)
      ]], 'rm ' .. path .. ' && ' .. replace),
        string.format('FUSED_GEMM=auto XDG_CACHE_HOME=%s HOME=%s', dir, dir))
      assert.is_truthy(out:find('choices: float32 NN ~64x64x64 t1: %a+; float32 NN ~128x64x64 t1: '
                                .. '%a+\n'), out)
      assert.equal('regular file', shell('stat -c %F ' .. path), replace)
      assert.is_truthy(helper.read(path):find('^fused%-gemm%-wisdom 2 %x+\nfloat32 NN 6 6 6 1 %a+\n'
                                              .. 'float32 NN 7 6 6 1 %a+\n$'), replace)
      assert.equal('not wisdom\n', helper.read(target))
    end
    os.execute('rm -rf ' .. dir)
  end)

  it('refuses a folder or file that others may write or own, and a link, writing nothing',
     function()
    local dir, folder, path = fresh_cache()
    auto_child(dir)
    local good = helper.read(path)
    os.execute('chmod 0777 ' .. folder)
    local out = auto_child(dir)
    assert.is_truthy(out:find('classes; refused: its folder is not ours alone', 1, true), out)
    assert.equal(good, helper.read(path))
    os.execute('chmod 0700 ' .. folder .. ' && chmod 0666 ' .. path)
    out = auto_child(dir)
    assert.is_truthy(out:find('classes; refused: the file is not ours alone', 1, true), out)
    os.execute('rm ' .. path .. ' && ln -s /etc/passwd ' .. path)
    out = auto_child(dir)
    assert.is_truthy(out:find('classes; refused: ', 1, true), out)
    assert.is_truthy(out:find('choices: float32 NN ~64x64x64', 1, true), out) -- measured all the same
    os.execute('rm -rf ' .. dir)
  end)

  it('says why there is none where HOME and XDG_CACHE_HOME are not absolute', function()
    local out = helper.child("print('wisdom: ' .. fused.config().gemm_wisdom)",
                             'FUSED_GEMM=auto XDG_CACHE_HOME= HOME=relative')
    assert.is_truthy(out:find('wisdom: none: neither XDG_CACHE_HOME nor HOME is an absolute path',
                              1, true), out)
  end)
end)
