-- The C of a linear cell (fused.cell.define{linear = true}, cell/linear.lua): its coefficients,
-- every step's A (S x S) and b (S) from gx, the per-unit parameters, x and reset, in one pass
-- over the T x B rows, and its backward (from d_A and d_b to d_gx, the rows' d_p and d_x);
-- and, for a cell whose outputs are expressions of its new states (the SRU's h), the outputs'
-- pass after the scan and its backward (from d_y to the new states', gx's, p's and x's).
-- The expressions are codegen.lua's, over the same vectors (fused_simd.h); backward recomputes
-- the forward nodes it reads (a pass over a row costs less than saving them).
--
-- Layout (the scan engine's, c/fused.h): row r = t * B + b; gx (n, G, H), A (n, S, S, H) with
-- A[r][i][k] how old state k enters new state i, b (n, S, H), x (n, H), reset (n) bool or
-- NULL, p (P, H); d_p (n, P, H), each row's part (the caller sums them); h, d_h (n, S, H),
-- y, d_y (n, O, H).
local graph = require 'fused.cell.graph'
local codegen = require 'fused.cell.codegen'

local M = {}

local name_of, expression, value = codegen.name_of, codegen.expression, codegen.value

local function at(k) return k == 0 and 'j' or (k .. ' * H + j') end

local function load_leaf(n)
  if n.op == 'gx' then return 'vload(gx_row + ' .. at(n.index - 1) .. ', m)' end
  if n.op == 'p' then return 'vload(p + ' .. at(n.index - 1) .. ', m)' end
  if n.op == 'x' then return 'vload(x_row + j, m)' end
  if n.op == 'reset' then return 'vsplat(reset_row)' end
  if n.op == 'dA' then return 'vload(dA_row + ' .. at(n.index - 1) .. ', m)' end
  if n.op == 'db' then return 'vload(db_row + ' .. at(n.index - 1) .. ', m)' end
  if n.op == 'ns' then return 'vload(h_row + ' .. at(n.index - 1) .. ', m)' end
  if n.op == 'dy' then return 'vload(dy_row + ' .. at(n.index - 1) .. ', m)' end
  error('fused.cell: a linear cell reads no ' .. n.op .. ' in its coefficients')
end

local ROW = {
  '    const scalar_t *gx_row __attribute__((unused)) = gx + r * %G * H;',
  '    const scalar_t *x_row __attribute__((unused)) = x ? x + r * H : NULL;',
  '    const scalar_t reset_row __attribute__((unused)) = reset && reset[r] ? 1 : 0;',
}
local COMMON = 'int64_t n, int64_t H, const scalar_t *gx, const scalar_t *p, const scalar_t *x, '
               .. 'const bool *reset, '
local COMMON_CALL = 'n, H, gx, p, x, reset, '

-- A row's lines as a macro: the one body that the CPU's functions (over the rows, VEC_FOR over
-- vectors) and the CUDA kernels (one element a thread: fused_cell_cuda.h's VEC_FOR) expand.
-- pass: {pointers = {lines}, stores = {{'dest', node}, ...}}.
local function row_macro(out, macro, pass, sizes)
  local lines = {}
  for _, l in ipairs(ROW) do lines[#lines + 1] = (l:gsub('%%(%a)', sizes)) end
  for _, l in ipairs(pass.pointers) do lines[#lines + 1] = (l:gsub('%%(%a)', sizes)) end
  lines[#lines + 1] = '    VEC_FOR(H, j, m, {'
  local roots = {}
  for _, st in ipairs(pass.stores) do
    if st[2].op ~= 'const' then roots[#roots + 1] = st[2] end
  end
  for _, n in ipairs(graph.reachable(roots)) do
    if n.op ~= 'const' then
      local rhs = #n.args == 0 and load_leaf(n) or expression(n)
      lines[#lines + 1] = '      const vec ' .. name_of(n) .. ' = ' .. rhs .. ';'
    end
  end
  for _, st in ipairs(pass.stores) do
    lines[#lines + 1] = string.format('      vstore(%s, %s, m);', st[1], value(st[2]))
  end
  lines[#lines + 1] = '    })'
  out[#out + 1] = '#define ' .. macro .. ' \\'
  for _, l in ipairs(lines) do out[#out + 1] = l .. ' \\' end
  out[#out + 1] = '  /* end of ' .. macro .. ' */'
  out[#out + 1] = ''
end

-- The CPU's float and double functions, and the CUDA kernels with their launchers
-- (fname_cuda..., returning 0 or -1 with fused_error's message).
local function instances(out, fname, cuda_fname, args, call, macro)
  out[#out + 1] = '#if defined(__CUDACC__) || defined(FUSED_CUDA_EMULATED)'
  out[#out + 1] = 'template <typename scalar_t>'
  out[#out + 1] = '__global__ void ' .. fname .. '_kernel(' .. args .. ') {'
  out[#out + 1] = '  typedef scalar_t vec __attribute__((unused));'
  out[#out + 1] = '  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n * H;'
  out[#out + 1] = '       i += (int64_t)gridDim.x * blockDim.x) {'
  out[#out + 1] = '    const int64_t r = i / H, fused_cell_j = i % H;'
  out[#out + 1] = '    ' .. macro
  out[#out + 1] = '  }'
  out[#out + 1] = '}'
  for _, t in ipairs({ { 'float', 'f32' }, { 'double', 'f64' } }) do
    out[#out + 1] = string.format('extern "C" int %s_%s(%s) {', cuda_fname, t[2],
                                  (args:gsub('scalar_t', t[1])))
    out[#out + 1] = '  const int64_t threads = 256, most = 8192;'
    out[#out + 1] = '  int64_t blocks = (n * H + threads - 1) / threads;'
    out[#out + 1] = '  blocks = blocks < 1 ? 1 : blocks > most ? most : blocks;'
    out[#out + 1] = '  FUSED_LAUNCH((unsigned)blocks, (unsigned)threads, 0,'
    out[#out + 1] = '               (cudaStream_t)fused_cuda_stream(),'
    out[#out + 1] = '               ' .. fname .. '_kernel<' .. t[1] .. '>)(' .. call .. ');'
    out[#out + 1] = '  const cudaError_t err = cudaGetLastError();'
    out[#out + 1] = '  if (err != cudaSuccess)'
    out[#out + 1] = '    return fused_error("' .. cuda_fname .. ': CUDA error %s (%s)",'
    out[#out + 1] = '                       cudaGetErrorName(err),'
    out[#out + 1] = '                       cudaGetErrorString(err));'
    out[#out + 1] = '  return 0;'
    out[#out + 1] = '}'
  end
  out[#out + 1] = '#else'
  for _, t in ipairs({ { 'float', 'f32' }, { 'double', 'f64' } }) do
    out[#out + 1] = string.format('void %s_%s(%s) {', fname, t[2], (args:gsub('scalar_t', t[1])))
    out[#out + 1] = '  typedef ' .. t[1] .. ' scalar_t;'
    out[#out + 1] = '  typedef vec_' .. t[2] .. ' vec __attribute__((unused));'
    out[#out + 1] = '  for (int64_t r = 0; r < n; r++) {'
    out[#out + 1] = '    ' .. macro
    out[#out + 1] = '  }'
    out[#out + 1] = '}'
  end
  out[#out + 1] = '#endif'
end

-- The gradients' stores of a backward pass: d_gx (G), d_p (P), d_x (when read).
local function grad_stores(stores, d, G, P)
  for k = 1, G do stores[#stores + 1] = { 'd_gx_row + ' .. at(k - 1), d.d_gx[k] } end
  for k = 1, P do stores[#stores + 1] = { 'd_p_row + ' .. at(k - 1), d.d_p[k] } end
  if d.d_x then stores[#stores + 1] = { 'd_x + r * H + j', d.d_x } end
end
local GRAD_POINTERS = {
  '    scalar_t *d_gx_row = d_gx + r * %G * H;',
  '    scalar_t *d_p_row __attribute__((unused)) = d_p + r * %P * H;',
}
local GRAD_ARGS, GRAD_CALL = 'scalar_t *d_gx, scalar_t *d_p, scalar_t *d_x', 'd_gx, d_p, d_x'

-- d: {name, symbol (the functions' prefix), gates G, S, P, A = {{node}} (S x S), b = {node} (S),
-- d_gx = {node} (G), d_p = {node} (P), d_x (node or nil: x not read), outputs (nil: the
-- outputs are states; else {y = {node} (O), d_ns = {node} (S), d_gx, d_p, d_x} of the
-- outputs' pass)}. Returns the C source (C for the CPU, CUDA when compiled as CUDA) and the
-- cdefs of its CPU and CUDA functions.
function M.generate(d)
  local G, S, P = d.gates, d.S, d.P
  local sizes = { G = G, S = S, P = P, O = d.outputs and #d.outputs.y or 0 }
  local passes = {}
  local coef = { pointers = { '    scalar_t *A_row = A + r * %S * %S * H;',
                              '    scalar_t *b_row = b + r * %S * H;' },
                 stores = {} }
  for i = 1, S do
    for k = 1, S do
      coef.stores[#coef.stores + 1] = { 'A_row + ' .. at((i - 1) * S + k - 1), d.A[i][k] }
    end
    coef.stores[#coef.stores + 1] = { 'b_row + ' .. at(i - 1), d.b[i] }
  end
  passes[1] = { 'coefficients', coef, 'scalar_t *A, scalar_t *b', 'A, b' }
  local coef_b = { pointers = {
    '    const scalar_t *dA_row __attribute__((unused)) = dA + r * %S * %S * H;',
    '    const scalar_t *db_row __attribute__((unused)) = db + r * %S * H;',
    unpack(GRAD_POINTERS) }, stores = {} }
  grad_stores(coef_b.stores, d, G, P)
  passes[2] = { 'coefficients_backward', coef_b, 'const scalar_t *dA, const scalar_t *db, '
                .. GRAD_ARGS, 'dA, db, ' .. GRAD_CALL }
  if d.outputs then
    local o = d.outputs
    local outp = { pointers = { '    const scalar_t *h_row = h + r * %S * H;',
                                '    scalar_t *y_row = y + r * %O * H;' }, stores = {} }
    for k, y in ipairs(o.y) do outp.stores[k] = { 'y_row + ' .. at(k - 1), y } end
    passes[3] = { 'outputs', outp, 'const scalar_t *h, scalar_t *y', 'h, y' }
    local out_b = { pointers = { '    const scalar_t *h_row = h + r * %S * H;',
                                 '    const scalar_t *dy_row = dy + r * %O * H;',
                                 '    scalar_t *d_h_row = d_h + r * %S * H;',
                                 unpack(GRAD_POINTERS) }, stores = {} }
    for i = 1, S do out_b.stores[i] = { 'd_h_row + ' .. at(i - 1), o.d_ns[i] } end
    grad_stores(out_b.stores, o, G, P)
    passes[4] = { 'outputs_backward', out_b, 'const scalar_t *h, const scalar_t *dy, '
                  .. 'scalar_t *d_h, ' .. GRAD_ARGS, 'h, dy, d_h, ' .. GRAD_CALL }
  end

  local up = d.symbol:upper()
  local out = {
    '/* ' .. d.name .. ': a linear cell, generated by fused.cell.define from its step (F.source).',
    ' * Each step: new state = A s + b, A (' .. S .. ' x ' .. S .. ') and b (' .. S
      .. ') per step, row and unit from gx (' .. G .. ' gates), ' .. P .. ' per-unit parameters'
      .. (d.d_x and ', x' or '') .. ' and reset;',
    ' * the scan engine (fused_linear_scan) runs the recurrence' .. (d.outputs and ', then the '
      .. 'outputs pass reads the new states' or '') .. '. The same maths as a',
    " * cell's step (fused_simd.h on the CPU, one element a thread as CUDA: fused_cell_cuda.h). */",
    '#include <fused_ext.h>',
    '',
  }
  local cdef, cuda_cdef = {}, {}
  for _, ps in ipairs(passes) do
    local fname, macro = d.symbol .. '_' .. ps[1], up .. '_' .. ps[1]:upper()
    local args, call = COMMON .. ps[3], COMMON_CALL .. ps[4]
    row_macro(out, macro, ps[2], sizes)
    instances(out, fname, d.symbol .. '_cuda_' .. ps[1], args, call, macro)
    out[#out + 1] = ''
    for _, t in ipairs({ 'float', 'double' }) do
      local sfx, a = t == 'float' and 'f32' or 'f64', (args:gsub('scalar_t', t))
      cdef[#cdef + 1] = string.format('void %s_%s(%s);', fname, sfx, a)
      cuda_cdef[#cuda_cdef + 1] = string.format('int %s_cuda_%s_%s(%s);', d.symbol, ps[1], sfx, a)
    end
  end
  return table.concat(out, '\n'), table.concat(cdef, '\n'), table.concat(cuda_cdef, '\n')
end

return M
