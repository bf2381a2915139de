-- fused.sparse.mm(S, X, {bias =, activation =, out =}): relu?(S @ X + bias) for a sparse S
-- (rows x columns) and a dense X (columns x K), one pass over the result's rows on the CPU (a
-- graph layer's propagation with its bias and activation folded in). bias is a vector of K,
-- added to every row; activation nil or 'relu'. {out = t} as every op (fused/ops/out.lua).
local lib = require 'fused.lib'
local options = require 'fused.options'
local argcheck = require 'fused.check'
local out_ = require 'fused.ops.out'
local CSR = require 'fused.sparse.CSR'

local C, check, expect = lib.C, lib.check, argcheck.expect
local ACTIVATIONS = { relu = 1 }

local sizes = out_.sizes()
return function(S, X, opts)
  local fn = 'sparse.mm'
  opts = options.check(opts, fn, { 'activation', 'bias', 'out' })
  if not CSR.is_sparse(S) then
    error(string.format("%s: argument 'S' expected a sparse matrix (fused.sparse), got %s", fn, CSR.type_name(S)), 2)
  end
  expect(X, fn, 'X')
  if X.ndim ~= 2 or X:size(1) ~= S.n_cols then
    error(string.format("%s: argument 'X' expected %d x K (the columns of 'S', %d x %d), got [%s]", fn,
                        S.n_cols, S.n_rows, S.n_cols, table.concat(X:shape(), ', ')), 2)
  end
  if X.dtype ~= S.dtype or X.device ~= S.device then
    error(string.format("%s: argument 'X' expected %s on %s (as 'S'), got %s on %s", fn, S.dtype,
                        S.device, X.dtype, X.device), 2)
  end
  local relu = 0
  if opts.activation ~= nil then
    relu = ACTIVATIONS[opts.activation]
    if not relu then
      error(string.format("%s: option 'activation' expected 'relu' or nil, got %s", fn,
                          type(opts.activation) == 'string' and "'" .. opts.activation .. "'" or tostring(opts.activation)), 2)
    end
  end
  local bias = opts.bias
  if bias ~= nil then bias = out_.contiguous(expect(bias, fn, 'bias')) end
  sizes[0], sizes[1] = S.n_rows, X.sizes[1]
  local out = out_.result(fn, opts.out, 2, sizes, X.scalar_type, X.device_type)
  local dst = out_.dense(out)
  check(C.fused_spmm(dst, S.row_ptr, S.col_idx, S.values, out_.contiguous(X), bias, relu))
  return out_.finish(out, dst)
end
