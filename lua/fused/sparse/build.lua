-- Building sparse matrices: fused.sparse.csr from its three arrays (checked),
-- fused.sparse.from_coo from (row, column, value) triples (repeats summed), fused.sparse.from_dense.
-- Indices count from 1 and come as Lua lists or int64 tensors; CSR.lua has the type.
local ffi = require 'ffi'
local lib = require 'fused.lib'
local dt = require 'fused.dtype'
local options = require 'fused.options'
local argcheck = require 'fused.check'
local factory = require 'fused.factory'
local CSR = require 'fused.sparse.CSR'

local C, check = lib.C, lib.check
local I64, F64 = { dtype = 'int64' }, { dtype = 'float64' }
local M = {}

-- Errors are blamed on the caller of the public function: level 4 from the helpers below that
-- the public functions call, level 3 from a public function itself.
local function fail(fmt, ...) error(string.format(fmt, ...), 4) end
local function fail_here(fmt, ...) error(string.format(fmt, ...), 3) end

local function show(x)
  if type(x) == 'table' then return argcheck.show_list(x) end
  if type(x) == 'string' then return string.format('%q', x) end
  return type(x) == 'number' and tostring(x) or argcheck.type_name(x)
end

-- size {rows, columns}: positive integers.
local function parse_size(size, fn)
  local ok = type(size) == 'table' and argcheck.sequence_length(size) == 2
  for i = 1, 2 do
    local s = ok and size[i]
    ok = ok and type(s) == 'number' and s >= 1 and s < 2 ^ 53 and s == math.floor(s)
  end
  if not ok then fail("%s: argument 'size' expected {rows, columns}, positive integers, got %s", fn, show(size)) end
  return size[1], size[2]
end

-- A list of integers or a 1-D int64 tensor, as an int64 tensor on the CPU.
local function indices(x, fn, arg)
  if argcheck.is_tensor(x) then
    if x.dtype ~= 'int64' or x.ndim ~= 1 then
      fail("%s: argument '%s' expected a 1-D int64 tensor or a list of integers, got a %s tensor of %d dims",
           fn, arg, x.dtype, x.ndim)
    end
    return x:cpu():contiguous()
  end
  local n = type(x) == 'table' and argcheck.sequence_length(x)
  if not n or n == 0 then
    fail("%s: argument '%s' expected a non-empty list of integers or an int64 tensor, got %s", fn, arg, show(x))
  end
  local t = factory.empty({ n }, I64)
  local p = ffi.cast('int64_t*', t.data)
  for i = 1, n do
    local v = x[i]
    if type(v) ~= 'number' or v ~= math.floor(v) or math.abs(v) >= 2 ^ 53 then
      fail("%s: argument '%s' expected integers, got %s at position %d", fn, arg, show(v), i)
    end
    p[i - 1] = v
  end
  return t
end

-- A list of numbers or a 1-D floating tensor, as float64 on the CPU.
local function numbers(x, fn, arg)
  if argcheck.is_tensor(x) then
    if not dt.computes_floating[x.scalar_type] or x.ndim ~= 1 then
      fail("%s: argument '%s' expected a 1-D %s tensor or a list of numbers, got a %s tensor of %d dims",
           fn, arg, dt.floating_names(), x.dtype, x.ndim)
    end
    return x:to('float64', 'cpu'):contiguous()
  end
  local n = type(x) == 'table' and argcheck.sequence_length(x)
  if not n or n == 0 then fail("%s: argument '%s' expected a non-empty list of numbers or a tensor, got %s", fn, arg, show(x)) end
  for i = 1, n do
    if type(x[i]) ~= 'number' then fail("%s: argument '%s' expected numbers, got %s at position %d", fn, arg, show(x[i]), i) end
  end
  return factory.tensor(x, F64)
end

local function same_length(t, ref, fn, arg, ref_arg)
  if t:numel() ~= ref:numel() then
    fail("%s: argument '%s' expected %d entries (as '%s'), got %d", fn, arg, ref:numel(), ref_arg, t:numel())
  end
end

-- {dtype=, device=} of the result: by default the values' own when they are a tensor, else
-- float32 on the cpu.
local function result_options(opts, values, fn)
  opts = options.check(opts, fn, { 'device', 'dtype' })
  local like = argcheck.is_tensor(values) and values or nil
  local dtype, device = dt.parse({ dtype = opts.dtype or (like and like.dtype), device = opts.device or (like and like.device) }, fn, 4)
  if C.fused_dtype_info_of(dtype).is_floating == 0 then
    fail("%s: option 'dtype' expected 'float32' or 'float64', got '%s'", fn, dt.dtype_names[dtype])
  end
  return dt.dtype_names[dtype], dt.device_names[device]
end

local function finish(row_ptr, col_idx, values, n_rows, n_cols, dtype, device)
  return CSR.make(row_ptr:to(device), col_idx:to(device), values:to(dtype, device), n_rows, n_cols)
end

-- fused.sparse.csr(row_ptr, col_idx, values, {rows, columns}, {dtype=, device=}): row_ptr holds
-- rows + 1 offsets from 0 (row r's entries are at positions row_ptr[r] + 1 .. row_ptr[r + 1]).
function M.csr(row_ptr, col_idx, values, size, opts)
  local fn = 'sparse.csr'
  local n_rows, n_cols = parse_size(size, fn)
  local dtype, device = result_options(opts, values, fn)
  local rp, ci, v = indices(row_ptr, fn, 'row_ptr'), indices(col_idx, fn, 'col_idx'), numbers(values, fn, 'values')
  if rp:numel() ~= n_rows + 1 then
    fail_here("%s: argument 'row_ptr' expected %d offsets (rows + 1), got %d", fn, n_rows + 1, rp:numel())
  end
  same_length(v, ci, fn, 'values', 'col_idx')
  check(C.fused_csr_check(rp, ci, v, n_cols))
  return finish(rp, ci, v, n_rows, n_cols, dtype, device)
end

-- fused.sparse.from_coo(rows, cols, values, {rows, columns}, {dtype=, device=}): entry k is
-- values[k] at (rows[k], cols[k]); repeated positions are summed.
function M.from_coo(rows, cols, values, size, opts)
  local fn = 'sparse.from_coo'
  local n_rows, n_cols = parse_size(size, fn)
  local dtype, device = result_options(opts, values, fn)
  local r, c, v = indices(rows, fn, 'rows'), indices(cols, fn, 'cols'), numbers(values, fn, 'values')
  same_length(c, r, fn, 'cols', 'rows')
  same_length(v, r, fn, 'values', 'rows')
  local n = r:numel()
  local row_ptr, col_idx, merged = factory.empty({ n_rows + 1 }, I64), factory.empty({ n }, I64), factory.empty({ n }, F64)
  local nnz = ffi.new('int64_t[1]')
  check(C.fused_csr_from_coo(row_ptr, col_idx, merged, nnz, r, c, v, n_cols))
  local kept = tonumber(nnz[0])
  if kept < n then -- repeats were merged: keep only the entries in use
    col_idx, merged = col_idx:narrow(1, 1, kept):clone(), merged:narrow(1, 1, kept):clone()
  end
  return finish(row_ptr, col_idx, merged, n_rows, n_cols, dtype, device)
end

-- fused.sparse.from_dense(A): the nonzero entries of a 2-D floating tensor, on its device and
-- of its dtype. An all-zero A keeps one explicit zero (values is never empty).
function M.from_dense(A)
  local fn = 'sparse.from_dense'
  argcheck.expect(A, fn, 'A')
  if A.ndim ~= 2 or not dt.computes_floating[A.scalar_type] then
    fail_here("%s: argument 'A' expected a 2-D %s tensor, got a %s tensor of shape [%s]",
         fn, dt.floating_names(), A.dtype, table.concat(A:shape(), ', '))
  end
  local host = A:cpu():contiguous()
  local n_rows, n_cols = A:size(1), A:size(2)
  local x = ffi.cast(dt.ctypes[host.scalar_type], host.data)
  local nnz = 0
  for i = 0, n_rows * n_cols - 1 do
    if x[i] ~= 0 then nnz = nnz + 1 end
  end
  local row_ptr, col_idx = factory.zeros({ n_rows + 1 }, I64), factory.ones({ math.max(nnz, 1) }, I64)
  local values = factory.zeros({ math.max(nnz, 1) }, { dtype = A.dtype })
  local rp, ci = ffi.cast('int64_t*', row_ptr.data), ffi.cast('int64_t*', col_idx.data)
  local v, k = ffi.cast(dt.ctypes[values.scalar_type], values.data), 0
  for r = 0, n_rows - 1 do
    for c = 0, n_cols - 1 do
      local a = x[r * n_cols + c]
      if a ~= 0 then
        ci[k], v[k], k = c + 1, a, k + 1
      end
    end
    rp[r + 1] = k
  end
  if nnz == 0 then -- the explicit zero sits at (1, 1): every row but the first is empty after it
    for r = 1, n_rows do rp[r] = 1 end
  end
  return finish(row_ptr, col_idx, values, n_rows, n_cols, A.dtype, A.device)
end

return M
