-- fused.sparse.normalize_adjacency(A): D^-1/2 (A + I) D^-1/2, Kipf and Welling's renormalised
-- adjacency for a graph convolution, D being the row sums of A + I (a self-loop already in A
-- adds to the one added). Square sparse A; the result has A's dtype and device, built on the
-- host in float64.
local ffi = require 'ffi'
local dt = require 'fused.dtype'
local factory = require 'fused.factory'
local CSR = require 'fused.sparse.CSR'
local build = require 'fused.sparse.build'

return function(A)
  local fn = 'sparse.normalize_adjacency'
  if not CSR.is_sparse(A) or A.n_rows ~= A.n_cols then
    error(string.format("%s: argument 'A' expected a square sparse matrix, got %s", fn,
                        CSR.is_sparse(A) and A.n_rows .. ' x ' .. A.n_cols or CSR.type_name(A)), 2)
  end
  local n, nnz = A.n_rows, A:nnz()
  local rp, ci, v = A.row_ptr:cpu(), A.col_idx:cpu(), A.values:to('float64', 'cpu')
  local offsets, cols, x = ffi.cast('int64_t*', rp.data), ffi.cast('int64_t*', ci.data), ffi.cast('double*', v.data)
  -- A's entries, then the diagonal: from_coo sums them into A + I.
  local I64 = { dtype = 'int64' }
  local rows, columns = factory.empty({ nnz + n }, I64), factory.empty({ nnz + n }, I64)
  local values = factory.ones({ nnz + n }, { dtype = 'float64' })
  local r_, c_, v_ = ffi.cast('int64_t*', rows.data), ffi.cast('int64_t*', columns.data), ffi.cast('double*', values.data)
  for r = 0, n - 1 do
    for p = tonumber(offsets[r]), tonumber(offsets[r + 1]) - 1 do
      r_[p], c_[p], v_[p] = r + 1, cols[p], x[p]
    end
    r_[nnz + r], c_[nnz + r] = r + 1, r + 1
  end
  local S = build.from_coo(rows, columns, values, { n, n })
  local s_offsets, s_cols, s_values = ffi.cast('int64_t*', S.row_ptr.data), ffi.cast('int64_t*', S.col_idx.data),
                                      ffi.cast(dt.ctypes[S.values.scalar_type], S.values.data)
  local scale = ffi.new('double[?]', n)
  for r = 0, n - 1 do
    local degree = 0
    for p = tonumber(s_offsets[r]), tonumber(s_offsets[r + 1]) - 1 do degree = degree + s_values[p] end
    if not (degree > 0) then
      error(string.format("%s: argument 'A' expected rows of A + I that sum above 0, got %g in row %d",
                          fn, degree, r + 1), 2)
    end
    scale[r] = 1 / math.sqrt(degree)
  end
  for r = 0, n - 1 do
    for p = tonumber(s_offsets[r]), tonumber(s_offsets[r + 1]) - 1 do
      s_values[p] = s_values[p] * scale[r] * scale[tonumber(s_cols[p]) - 1]
    end
  end
  return S:to(A.dtype, A.device)
end
