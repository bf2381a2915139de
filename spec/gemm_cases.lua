-- The GEMM chooser's hidden cases (issue 38), shared by gemm_choice_cases_spec.lua, which runs
-- them in process under the fixed providers and in a child under auto on a fresh wisdom folder:
-- each returns how many results it compared and a line for each one that was wrong.
local ffi = require 'ffi'
local helper = require 'spec.helper'
local fused = helper.fused
local F = fused.cell

local M = {}

-- The settings this build runs. Under valgrind OpenBLAS and the packed kernel only: oneDNN's
-- JIT kernels read up to 32 bytes past the buffers oneDNN packs for itself at some of these
-- shapes (valgrind: "0 bytes after a block alloc'd" in dnnl_sgemm), which memcheck reports as
-- it reports libcublas's reads; auto could pick oneDNN.
M.settings = { 'openblas', 'packed' }
if not helper.valgrind then
  M.settings[3] = 'auto'
  if fused.config().gemm_providers:find('onednn', 1, true) then
    table.insert(M.settings, 2, 'onednn')
  end
end

-- The float64 product alpha·a·b + beta·bias, summing |terms| instead with absolute: the scale of
-- the rounding a float32 product may make (a single dot product can cancel to near zero).
local function reference(a, b, bias, beta, alpha, absolute)
  a, b = a:double():contiguous(), b:double():contiguous()
  local m, k, n = a:size(1), a:size(2), b:size(2)
  local out = fused.zeros({ m, n }, { dtype = 'float64' })
  local pa, pb, po = ffi.cast('double*', a.data), ffi.cast('double*', b.data), ffi.cast('double*', out.data)
  local v = bias and bias:double():contiguous()
  local pv, f = v and ffi.cast('double*', v.data), absolute and math.abs or function(x) return x end
  for i = 0, m - 1 do
    for j = 0, n - 1 do
      local s = 0
      for kk = 0, k - 1 do s = s + f(pa[i * k + kk] * pb[kk * n + j]) end
      s = f(alpha) * s
      if v and beta ~= 0 then s = s + f(beta * pv[v.ndim == 2 and i * n + j or j]) end
      po[i * n + j] = s
    end
  end
  return out
end

local function norm(t) return helper.rel_error(t, t:mul(0)) end

-- An r×c operand laid out as layout says: 'n' row-major, 't' a transposed view, 's' rows
-- further apart than its columns (BLAS's ld), 'x' columns 2 apart (copied for BLAS).
local function operand(r, c, layout, dtype)
  local o = { dtype = dtype }
  if layout == 'n' then return fused.randn({ r, c }, o) end
  if layout == 't' then return fused.randn({ c, r }, o):t() end
  if layout == 's' then return fused.randn({ r, 2 * c + 1 }, o):narrow(2, 2, c) end
  return fused.randn({ r, 2 * c }, o):view(r, c, 2):select(3, 1)
end

-- matmul, addmm (a vector and a matrix bias) and addmm_ at m, n, k at the edges of the shape
-- classes and of the packed kernel's tiles, every layout of a and b, under setting on 1 and
-- 2 threads: within 1e-6 (float32) and 1e-12 (float64) of the reference's scale.
function M.products(setting)
  local sizes, layouts = { 0, 1, 7, 8, 9, 16, 17, 65 }, { 'n', 't', 's', 'x' }
  local scales = { { 0.5, 2 }, { 0, -1 } } -- {beta, alpha}
  local wrong, n = {}, 0
  local threads = fused.get_num_threads()
  fused.set_gemm(setting)
  fused.manual_seed(1)
  for _, th in ipairs({ 1, 2 }) do
    fused.set_num_threads(th)
    for _, dtype in ipairs({ 'float32', 'float64' }) do
      for i, m in ipairs(sizes) do
        for j, cols in ipairs(sizes) do
          for l, k in ipairs(sizes) do
            -- every shape in NN, and each layout pair on a shape of its own
            local la, lb = layouts[(i + l) % 4 + 1], layouts[(j + l + th) % 4 + 1]
            local a, b = operand(m, k, la, dtype), operand(k, cols, lb, dtype)
            local bias = fused.randn((i + j) % 2 == 0 and { cols } or { m, cols }, { dtype = dtype })
            local beta, alpha = unpack(scales[(i + j + l) % 2 + 1])
            local self_ = fused.randn({ m, cols }, { dtype = dtype })
            local got = {
              { fused.matmul(a, b, { out = fused.full({ m, cols }, 0 / 0, { dtype = dtype }) }), nil, 0, 1 },
              { fused.addmm(bias, a, b, { beta = beta, alpha = alpha }), bias, beta, alpha },
              { self_:clone():addmm_(a, b, { beta = beta, alpha = alpha }), self_, beta, alpha },
            }
            for q, r in ipairs(got) do
              n = n + 1
              local want = reference(a, b, r[2], r[3], r[4])
              local scale = norm(reference(a, b, r[2], r[3], r[4], true))
              local e = helper.rel_error(r[1], want) * norm(want) / (scale > 0 and scale or 1)
              if not (e <= (dtype == 'float64' and 1e-12 or 1e-6)) then
                wrong[#wrong + 1] = string.format('%s t%d %s product %d at %dx%dx%d (%s, %s): %.3g',
                                                  setting, th, dtype, q, m, cols, k, la, lb, e)
              end
            end
          end
        end
      end
    end
  end
  fused.set_num_threads(threads)
  return n, wrong
end

local defined = {}
local function define(file)
  defined[file] = defined[file] or F.define(dofile('examples/cells/' .. file .. '.lua')(F))
  return defined[file]
end

local function ragged(T, B)
  local lengths = {}
  for b = 1, B do lengths[b] = 1 + (b * 5) % T end
  return lengths
end

-- Recurrent layers and cells whose per-step products (rows × G·H × H on a thread's rows), weight
-- gradients and products over all steps cross the packed kernel's tiles (6 or 8 rows, panels
-- of 2 vectors) and the shape classes: {name, make(opts), T, B, I, lengths, states}.
M.layers = {
  { 'LSTM H1 B1', function(o) return fused.nn.LSTM(5, 1, o) end, 3, 1, 5 },
  { 'LSTM H7 B9', function(o) return fused.nn.LSTM(5, 7, o) end, 3, 9, 5 },
  { 'LSTM H8 B8', function(o) return fused.nn.LSTM(5, 8, o) end, 3, 8, 5 },
  { 'LSTM H9 B17', function(o) return fused.nn.LSTM(5, 9, o) end, 3, 17, 5 },
  { 'LSTM H17 B65', function(o) return fused.nn.LSTM(5, 17, o) end, 3, 65, 5 },
  { 'LSTM 70-130 B40', function(o) return fused.nn.LSTM(70, 130, o) end, 4, 40, 70 },
  { 'GRU H9 B17 ragged', function(o) return fused.nn.GRU(65, 9, o) end, 5, 17, 65, ragged(5, 17) },
  { 'LLTM H16 B9', function(o) return fused.nn.LLTM(7, 16, o) end, 4, 9, 7 },
  { 'LSTM 2 layers bidirectional ragged', function(o)
    o.num_layers, o.bidirectional = 2, true
    return fused.nn.LSTM(9, 17, o)
  end, 5, 17, 9, ragged(5, 17) },
  { 'GRU 4 heads ragged', function(o) o.heads = 4; return fused.nn.GRU(10, 36, o) end,
    5, 17, 10, ragged(5, 17) },
  { 'defined LSTM 2 heads bidirectional', function(o)
    o.cell, o.heads, o.bidirectional = define('lstm'), 2, true
    return fused.nn.RNN(6, 16, o)
  end, 4, 9, 6, ragged(4, 9) },
  { 'peephole LSTM ragged', function(o) o.cell = define('peephole_lstm'); return fused.nn.RNN(6, 17, o) end,
    5, 17, 6, ragged(5, 17) },
  { 'sLSTM 4 heads', function(o) o.cell, o.heads = define('slstm'), 4; return fused.nn.RNN(6, 16, o) end,
    5, 9, 6, nil, 4 },
  { 'highway GRU', function(o) o.cell = define('highway_gru'); return fused.nn.RNN(16, 16, o) end, 5, 9, 16 },
  { 'LSTM T = 1', function(o) return fused.nn.LSTM(40, 48, o) end, 1, 33, 40 },
}

-- forward and backward of a layer: every output, input gradient and parameter gradient.
local function layer_results(case, dtype, compute)
  local _, make, T, B, I, lengths, states = unpack(case, 1, 7)
  local o = { dtype = dtype }
  fused.manual_seed(7)
  local m = make({ dtype = dtype, compute = compute })
  fused.manual_seed(8)
  local xs = fused.randn({ T, B, I }, o)
  local k = states or (m.has_c and 2 or 1)
  local args = { xs, [k + 2] = { lengths = lengths } } -- the states nil: zeros
  local outs = { m:forward(unpack(args, 1, k + 2)) }
  local got = {}
  for _, t in ipairs(outs) do got[#got + 1] = t:clone() end
  fused.manual_seed(9)
  for _, t in ipairs({ m:backward(fused.randn(outs[1]:shape(), o)) }) do got[#got + 1] = t:clone() end
  for _, _, g in m:named_parameters() do got[#got + 1] = g:clone() end
  return got
end

-- nn.LSTMCell, GRUCell and LLTMCell (T = 1: the cpu_gemm_nt products) at edge batch sizes.
M.cells = {}
for _, class in ipairs({ 'LSTMCell', 'GRUCell', 'LLTMCell' }) do
  for _, d in ipairs({ { 1, 1, 1 }, { 9, 7, 17 }, { 65, 8, 64 } }) do
    M.cells[#M.cells + 1] = { class, d[1], d[2], d[3] }
  end
end

local function cell_results(case, dtype)
  local class, B, I, H = unpack(case)
  fused.manual_seed(1)
  local o = { dtype = dtype }
  local m = fused.nn[class](I, H, o)
  fused.manual_seed(2)
  local x, h, c = fused.randn({ B, I }, o), fused.randn({ B, H }, o), fused.randn({ B, H }, o)
  local outs = { m:forward(x, h, m.has_c and c or nil) }
  local got = {}
  for _, t in ipairs(outs) do got[#got + 1] = t:clone() end
  local back = { m:backward(fused.randn({ B, H }, o), #outs > 1 and fused.randn({ B, H }, o) or nil) }
  for _, t in ipairs(back) do got[#got + 1] = t:clone() end
  for _, _, g in m:named_parameters() do got[#got + 1] = g:clone() end
  return got
end

-- Every case's results under setting on 1 and 2 threads against float64 on OpenBLAS on one
-- thread (which the golden specs hold to PyTorch's): float64 within 1e-10, float32 1e-5.
function M.sequences(setting)
  local wrong, n = {}, 0
  local threads = fused.get_num_threads()
  local function compare(name, run)
    fused.set_gemm('openblas')
    fused.set_num_threads(1)
    local want = run('float64')
    fused.set_gemm(setting)
    for _, th in ipairs({ 1, 2 }) do
      fused.set_num_threads(th)
      for _, dtype in ipairs({ 'float32', 'float64' }) do
        for i, t in ipairs(run(dtype)) do
          n = n + 1
          local e = helper.rel_error(t, want[i])
          if not (e <= (dtype == 'float64' and 1e-10 or 1e-5)) then
            wrong[#wrong + 1] = string.format('%s t%d %s %s result %d: %.3g', setting, th, dtype,
                                              name, i, e)
          end
        end
      end
    end
  end
  for _, case in ipairs(M.layers) do
    compare(case[1], function(dtype) return layer_results(case, dtype) end)
  end
  for _, case in ipairs(M.cells) do
    compare(table.concat(case, ' '), function(dtype) return cell_results(case, dtype) end)
  end
  fused.set_num_threads(threads)
  return n, wrong
end

-- compute = 'bfloat16' on the float32 fallback (the avx2 path: the native one has its own
-- products), whose rounded operands every provider multiplies: under setting on 1 and 2
-- threads within 1e-4 of OpenBLAS on one thread, and within 5e-2 of float64.
function M.bfloat16(setting)
  local wrong, n = {}, 0
  local threads = fused.get_num_threads()
  helper.under_cpu_capability('avx2', function()
    for c = 7, 10 do
      local case = M.layers[c]
      fused.set_gemm('openblas')
      fused.set_num_threads(1)
      local want, exact = layer_results(case, 'float32', 'bfloat16'), layer_results(case, 'float64')
      fused.set_gemm(setting)
      for _, th in ipairs({ 1, 2 }) do
        fused.set_num_threads(th)
        for i, t in ipairs(layer_results(case, 'float32', 'bfloat16')) do
          n = n + 1
          local e, far = helper.rel_error(t, want[i]), helper.rel_error(t, exact[i])
          if not (e <= 1e-4 and far <= 5e-2) then
            wrong[#wrong + 1] = string.format('%s t%d bfloat16 %s result %d: %.3g (%.3g from '
                                              .. 'float64)', setting, th, case[1], i, e, far)
          end
        end
      end
    end
  end)
  fused.set_num_threads(threads)
  return n, wrong
end

return M
