-- The sparse matrix type of fused.sparse: CSR over three tensors on one device, row_ptr (rows + 1
-- offsets counted from 0, int64), col_idx (columns counted from 1, int64) and values (float32 or
-- float64); c/fused.h gives the layout. A matrix never changes: its methods make new ones.
--
--   S:nnz(), S:size() ({rows, columns}) or S:size(dim), S.dtype, S.device
--   S:to_dense(), S:t(), S:to(dtype or device), S:cuda(), S:cpu(), S:float(), S:double()
local ffi = require 'ffi'
local lib = require 'fused.lib'
local dt = require 'fused.dtype'
local tensor = require 'fused.tensor'
local argcheck = require 'fused.check'
local factory = require 'fused.factory'

local C, check = lib.C, lib.check
local CSR = {}
local M = { CSR = CSR }

local mt = { __name = 'fused.sparse.CSR' }

-- The matrix over three contiguous tensors that make a valid CSR structure (the builders check).
function M.make(row_ptr, col_idx, values, n_rows, n_cols)
  return setmetatable({ row_ptr = row_ptr, col_idx = col_idx, values = values, n_rows = n_rows,
                        n_cols = n_cols, dtype = values.dtype, device = values.device }, mt)
end

function M.is_sparse(x) return getmetatable(x) == mt end

-- What x is, for "got ..." in errors.
function M.type_name(x) return M.is_sparse(x) and 'a sparse matrix' or argcheck.type_name(x) end

function CSR.nnz(S) return S.values:numel() end

function CSR.size(S, dim)
  if dim == nil then return { S.n_rows, S.n_cols } end
  if dim ~= 1 and dim ~= 2 and dim ~= -1 and dim ~= -2 then
    error("sparse.size: argument 'dim' expected 1 or 2, got " .. tostring(dim), 2)
  end
  return (dim == 1 or dim == -2) and S.n_rows or S.n_cols
end

-- The three tensors on the host, as the structure functions of the C API take them.
local function on_host(S) return S.row_ptr:cpu(), S.col_idx:cpu(), S.values:cpu() end

function CSR.to_dense(S)
  local rp, ci, v = on_host(S)
  local dense = factory.zeros({ S.n_rows, S.n_cols }, { dtype = S.dtype })
  local offsets, cols = ffi.cast('int64_t*', rp.data), ffi.cast('int64_t*', ci.data)
  local x, y = ffi.cast(dt.ctypes[v.scalar_type], v.data), ffi.cast(dt.ctypes[v.scalar_type], dense.data)
  for r = 0, S.n_rows - 1 do
    for p = tonumber(offsets[r]), tonumber(offsets[r + 1]) - 1 do
      local at = r * S.n_cols + tonumber(cols[p]) - 1
      y[at] = y[at] + x[p] -- a repeated position adds up, as in a product
    end
  end
  return dense:to(S.device)
end

-- The transpose, built on the host: a graph layer builds it once per matrix, not per step.
function CSR.t(S)
  local rp, ci, v = on_host(S)
  local I64 = { dtype = 'int64' }
  local t_rp, t_ci = factory.empty({ S.n_cols + 1 }, I64), factory.empty({ S:nnz() }, I64)
  local t_v = factory.empty({ S:nnz() }, { dtype = S.dtype })
  check(C.fused_csr_transpose(t_rp, t_ci, t_v, rp, ci, v))
  return M.make(t_rp:to(S.device), t_ci:to(S.device), t_v:to(S.device), S.n_cols, S.n_rows)
end

-- S:to(dtype, device) in either order, as Tensor's to; the values keep a floating dtype.
function CSR.to(S, a, b)
  local dtype = tensor.parse_to(a, b, 'sparse.to', 3)
  if dtype and C.fused_dtype_info_of(dtype).is_floating == 0 then
    error(string.format("sparse.to: expected a floating dtype ('float32' or 'float64'), got '%s'",
                        dt.dtype_names[dtype]), 2)
  end
  local values = S.values:to(a, b)
  if rawequal(values, S.values) then return S end
  return M.make(S.row_ptr:to(values.device), S.col_idx:to(values.device), values, S.n_rows, S.n_cols)
end
function CSR.cuda(S) return S:to('cuda') end
function CSR.cpu(S) return S:to('cpu') end
function CSR.float(S) return S:to('float32') end
function CSR.double(S) return S:to('float64') end

-- The header, then the first entries in row order.
local SHOWN = 10
function mt.__tostring(S)
  local lines = { string.format('fused.sparse.CSR %d x %d, %d %s, %s on %s', S.n_rows, S.n_cols,
                                S:nnz(), S:nnz() == 1 and 'entry' or 'entries', S.dtype, S.device) }
  local rp, ci, v = on_host(S)
  local offsets, cols = ffi.cast('int64_t*', rp.data), ffi.cast('int64_t*', ci.data)
  local x = ffi.cast(dt.ctypes[v.scalar_type], v.data)
  for r = 0, S.n_rows - 1 do
    for p = tonumber(offsets[r]), tonumber(offsets[r + 1]) - 1 do
      if #lines > SHOWN then
        lines[#lines + 1] = string.format('  ... (%d more)', S:nnz() - SHOWN)
        return table.concat(lines, '\n')
      end
      lines[#lines + 1] = string.format('  (%d, %d)  %.6g', r + 1, tonumber(cols[p]), x[p])
    end
  end
  return table.concat(lines, '\n')
end

-- A misspelt method is an error, not a nil; a method called with . says how to call it.
function mt.__index(_, k)
  local method = CSR[k]
  if method then return method end
  error(string.format("fused.sparse.CSR has no method or field %s",
                      type(k) == 'string' and "'" .. k .. "'" or tostring(k)), 2)
end
for name, f in pairs(CSR) do
  CSR[name] = function(S, ...)
    if not M.is_sparse(S) then
      error(string.format("fused.sparse.CSR.%s: expected a sparse matrix to call it on, got %s "
                          .. "(call it as S:%s(...))", name, argcheck.type_name(S), name), 2)
    end
    return f(S, ...)
  end
end

return M
