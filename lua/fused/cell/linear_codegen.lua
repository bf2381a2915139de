-- The C of a linear cell's coefficients (fused.cell.define{linear = true}, cell/linear.lua):
-- every step's A (S x S) and b (S) from gx, the per-unit parameters, x and reset, in one pass
-- over the T x B rows, and its backward (from d_A and d_b to d_gx, the rows' d_p and d_x).
-- The expressions are codegen.lua's, over the same vectors (fused_simd.h); backward recomputes
-- the forward nodes it reads (a pass over a row costs less than saving them).
--
-- Layout (the scan engine's, c/fused.h): row r = t * B + b; gx (n, G, H), A (n, S, S, H) with
-- A[r][i][k] how old state k enters new state i, b (n, S, H), x (n, H), reset (n) bool or
-- NULL, p (P, H); d_p (n, P, H), each row's part (the caller sums them).
local graph = require 'fused.cell.graph'
local codegen = require 'fused.cell.codegen'

local M = {}

local name_of, expression, value = codegen.name_of, codegen.expression, codegen.value

local function at(k) return k == 0 and 'j' or (k .. ' * H + j') end

local function load_leaf(n, S)
  if n.op == 'gx' then return 'vload(gx_row + ' .. at(n.index - 1) .. ', m)' end
  if n.op == 'p' then return 'vload(p + ' .. at(n.index - 1) .. ', m)' end
  if n.op == 'x' then return 'vload(x_row + j, m)' end
  if n.op == 'reset' then return 'vsplat(reset_row)' end
  if n.op == 'dA' then return 'vload(dA_row + ' .. at(n.index - 1) .. ', m)' end
  if n.op == 'db' then return 'vload(db_row + ' .. at(n.index - 1) .. ', m)' end
  error('fused.cell: a linear cell reads no ' .. n.op .. ' in its coefficients')
end

-- Lines computing the nodes reachable from roots, leaves loaded where first needed.
local function body(lines, roots, S)
  for _, n in ipairs(graph.reachable(roots)) do
    if n.op ~= 'const' then
      local rhs = #n.args == 0 and load_leaf(n, S) or expression(n)
      lines[#lines + 1] = '      const vec ' .. name_of(n) .. ' = ' .. rhs .. ';'
    end
  end
end

local function nonconst(list)
  local out = {}
  for _, n in ipairs(list) do if n.op ~= 'const' then out[#out + 1] = n end end
  return out
end

-- A row's lines as a macro (ROW of symbol): the one body that the CPU's functions (over the
-- rows, VEC_FOR over vectors) and the CUDA kernels (one element a thread: fused_cell_cuda.h's
-- VEC_FOR) expand.
local function row_macro(out, macro, lines)
  out[#out + 1] = '#define ' .. macro .. ' \\'
  for _, l in ipairs(lines) do out[#out + 1] = l .. ' \\' end
  out[#out + 1] = '  /* end of ' .. macro .. ' */'
  out[#out + 1] = ''
end

-- The CPU's float and double functions, and the CUDA kernels with their launchers
-- (symbol_cuda_..., returning 0 or -1 with fused_error's message).
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
    out[#out + 1] = '  FUSED_LAUNCH((unsigned)blocks, (unsigned)threads, 0, (cudaStream_t)fused_cuda_stream(),'
    out[#out + 1] = '               ' .. fname .. '_kernel<' .. t[1] .. '>)(' .. call .. ');'
    out[#out + 1] = '  const cudaError_t err = cudaGetLastError();'
    out[#out + 1] = '  if (err != cudaSuccess)'
    out[#out + 1] = '    return fused_error("' .. cuda_fname .. ': CUDA error %s (%s)", cudaGetErrorName(err),'
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

-- d: {name, symbol (the functions' prefix), gates G, S, P, A = {{node}} (S x S), b = {node} (S),
-- d_gx = {node} (G), d_p = {node} (P), d_x (node or nil: x not read)}. Returns the C source (C
-- for the CPU, CUDA when compiled as CUDA) and the cdefs of its CPU and CUDA functions.
function M.generate(d)
  local G, S, P = d.gates, d.S, d.P
  local row = {
    '    const scalar_t *gx_row = gx + r * ' .. G .. ' * H;',
    '    const scalar_t *x_row __attribute__((unused)) = x ? x + r * H : NULL;',
    '    const scalar_t reset_row __attribute__((unused)) = reset && reset[r] ? 1 : 0;',
  }
  local fwd = { unpack(row) }
  fwd[#fwd + 1] = '    scalar_t *A_row = A + r * ' .. S * S .. ' * H, *b_row = b + r * ' .. S .. ' * H;'
  fwd[#fwd + 1] = '    VEC_FOR(H, j, m, {'
  local roots = {}
  for i = 1, S do
    for k = 1, S do roots[#roots + 1] = d.A[i][k] end
    roots[#roots + 1] = d.b[i]
  end
  body(fwd, nonconst(roots), S)
  for i = 1, S do
    for k = 1, S do
      fwd[#fwd + 1] = string.format('      vstore(A_row + %s, %s, m);', at((i - 1) * S + k - 1),
                                    value(d.A[i][k]))
    end
    fwd[#fwd + 1] = string.format('      vstore(b_row + %s, %s, m);', at(i - 1), value(d.b[i]))
  end
  fwd[#fwd + 1] = '    })'

  local bwd = { unpack(row) }
  bwd[#bwd + 1] = '    const scalar_t *dA_row __attribute__((unused)) = dA + r * ' .. S * S .. ' * H;'
  bwd[#bwd + 1] = '    const scalar_t *db_row __attribute__((unused)) = db + r * ' .. S .. ' * H;'
  bwd[#bwd + 1] = '    scalar_t *d_gx_row = d_gx + r * ' .. G .. ' * H;'
  bwd[#bwd + 1] = '    scalar_t *d_p_row __attribute__((unused)) = d_p + r * ' .. P .. ' * H;'
  bwd[#bwd + 1] = '    VEC_FOR(H, j, m, {'
  local grads = {}
  for k = 1, G do grads[#grads + 1] = d.d_gx[k] end
  for k = 1, P do grads[#grads + 1] = d.d_p[k] end
  if d.d_x then grads[#grads + 1] = d.d_x end
  body(bwd, nonconst(grads), S)
  for k = 1, G do
    bwd[#bwd + 1] = string.format('      vstore(d_gx_row + %s, %s, m);', at(k - 1), value(d.d_gx[k]))
  end
  for k = 1, P do
    bwd[#bwd + 1] = string.format('      vstore(d_p_row + %s, %s, m);', at(k - 1), value(d.d_p[k]))
  end
  if d.d_x then
    bwd[#bwd + 1] = '      vstore(d_x + r * H + j, ' .. value(d.d_x) .. ', m);'
  end
  bwd[#bwd + 1] = '    })'

  local fargs = 'int64_t n, int64_t H, const scalar_t *gx, const scalar_t *p, const scalar_t *x, '
                .. 'const bool *reset, scalar_t *A, scalar_t *b'
  local fcall = 'n, H, gx, p, x, reset, A, b'
  local bargs = 'int64_t n, int64_t H, const scalar_t *gx, const scalar_t *p, const scalar_t *x, '
                .. 'const bool *reset, const scalar_t *dA, const scalar_t *db, scalar_t *d_gx, '
                .. 'scalar_t *d_p, scalar_t *d_x'
  local bcall = 'n, H, gx, p, x, reset, dA, db, d_gx, d_p, d_x'
  local up = d.symbol:upper()
  local out = {
    '/* ' .. d.name .. ': a linear cell, generated by fused.cell.define from its step (F.source).',
    ' * Each step: new state = A s + b, A (' .. S .. ' x ' .. S .. ') and b (' .. S
      .. ') per step, row and unit from gx (' .. G .. ' gates), ' .. P .. ' per-unit parameters'
      .. (d.d_x and ', x' or '') .. ' and reset;',
    ' * the scan engine (fused_linear_scan) runs the recurrence. The same maths as a cell\'s',
    ' * step (fused_simd.h on the CPU, one element a thread as CUDA: fused_cell_cuda.h). */',
    '#include <fused_ext.h>',
    '',
  }
  row_macro(out, up .. '_FORWARD_ROW', fwd)
  row_macro(out, up .. '_BACKWARD_ROW', bwd)
  instances(out, d.symbol .. '_coefficients', d.symbol .. '_cuda_coefficients', fargs, fcall,
            up .. '_FORWARD_ROW')
  out[#out + 1] = ''
  instances(out, d.symbol .. '_coefficients_backward', d.symbol .. '_cuda_coefficients_backward',
            bargs, bcall, up .. '_BACKWARD_ROW')
  local cdef, cuda_cdef = {}, {}
  for _, t in ipairs({ 'float', 'double' }) do
    local sfx = t == 'float' and 'f32' or 'f64'
    local fa, ba = (fargs:gsub('scalar_t', t)), (bargs:gsub('scalar_t', t))
    cdef[#cdef + 1] = string.format('void %s_coefficients_%s(%s);', d.symbol, sfx, fa)
    cdef[#cdef + 1] = string.format('void %s_coefficients_backward_%s(%s);', d.symbol, sfx, ba)
    cuda_cdef[#cuda_cdef + 1] = string.format('int %s_cuda_coefficients_%s(%s);', d.symbol, sfx, fa)
    cuda_cdef[#cuda_cdef + 1] = string.format('int %s_cuda_coefficients_backward_%s(%s);',
                                              d.symbol, sfx, ba)
  end
  return table.concat(out, '\n') .. '\n', table.concat(cdef, '\n'), table.concat(cuda_cdef, '\n')
end

return M
