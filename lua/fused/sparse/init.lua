-- fused.sparse: sparse matrices in CSR form and their product with dense ones.
--
--   local S = fused.sparse.from_coo({1, 2, 2}, {2, 1, 2}, {0.5, 1, 2}, {2, 2})  -- repeats summed
--   local S = fused.sparse.from_dense(A)          -- or fused.sparse.csr(row_ptr, col_idx, values, {N, M})
--   S:nnz(), S:size(), S:to_dense(), S:t(), S:cuda(), print(S)
--   local Y = fused.sparse.mm(S, X, {bias = b, activation = 'relu'})   -- relu(S @ X + b)
--   local A_hat = fused.sparse.normalize_adjacency(A)                  -- D^-1/2 (A + I) D^-1/2
local CSR = require 'fused.sparse.CSR'
local build = require 'fused.sparse.build'

-- Wrapped by the tape under 'fused.sparse.' .. name: its rules (autograd/rules/sparse.lua).
return require('fused.autograd.tape').guard({
  is_sparse = CSR.is_sparse,
  csr = build.csr, from_coo = build.from_coo, from_dense = build.from_dense,
  mm = require 'fused.sparse.mm',
  normalize_adjacency = require 'fused.sparse.normalize',
}, 'fused.sparse.')
