-- fused.sparse: building CSR matrices (from arrays, triples, dense), what they give back
-- (to_dense, t, nnz, size, printing, moves), the product sparse.mm against the dense one, the
-- normalised adjacency, and every malformed input as a clear error.
local helper = require 'spec.helper'
local fused = helper.fused
local close, err = helper.assert_close, helper.assert_error
local sparse = fused.sparse

local F64 = { dtype = 'float64' }

-- A 3 x 4 matrix with an empty row, as triples and as its dense form.
local ROWS, COLS, VALUES = { 1, 3, 1, 3 }, { 2, 4, 4, 1 }, { 0.5, -2, 3, 1 }
local DENSE = { { 0, 0.5, 0, 3 }, { 0, 0, 0, 0 }, { 1, 0, 0, -2 } }

describe('fused.sparse', function()
  it('from_coo sorts the triples into CSR and sums repeated positions', function()
    local S = sparse.from_coo(ROWS, COLS, VALUES, { 3, 4 }, F64)
    assert.are.same({ 3, 4 }, S:size())
    assert.are.equal(4, S:size(2))
    assert.are.equal(4, S:nnz())
    assert.are.same({ 0, 2, 2, 4 }, S.row_ptr:totable())
    assert.are.same({ 2, 4, 1, 4 }, S.col_idx:totable())
    assert.are.same(DENSE, S:to_dense():totable())
    local R = sparse.from_coo({ 2, 1, 2, 2 }, { 1, 1, 1, 2 }, { 1, 5, 2.5, 4 }, { 2, 2 }, F64)
    assert.are.equal(3, R:nnz())
    assert.are.same({ { 5, 0 }, { 3.5, 4 } }, R:to_dense():totable())
  end)

  it('takes int64 tensors as indices and a tensor of values, whose dtype it keeps', function()
    local I64 = { dtype = 'int64' }
    local S = sparse.from_coo(fused.tensor(ROWS, I64), fused.tensor(COLS, I64), fused.tensor(VALUES, F64), { 3, 4 })
    assert.are.equal('float64', S.dtype)
    assert.are.same(DENSE, S:to_dense():totable())
    assert.are.equal('float32', sparse.from_coo(ROWS, COLS, VALUES, { 3, 4 }).dtype)
  end)

  it('csr takes its three arrays as they are, and from_dense keeps the nonzeros', function()
    local S = sparse.csr({ 0, 2, 2, 4 }, { 2, 4, 1, 4 }, { 0.5, 3, 1, -2 }, { 3, 4 }, F64)
    assert.are.same(DENSE, S:to_dense():totable())
    local D = sparse.from_dense(fused.tensor(DENSE, F64))
    assert.are.same(S.row_ptr:totable(), D.row_ptr:totable())
    assert.are.same(S.col_idx:totable(), D.col_idx:totable())
    assert.are.same(S.values:totable(), D.values:totable())
    local Z = sparse.from_dense(fused.zeros({ 2, 3 }))
    assert.are.equal(1, Z:nnz()) -- one explicit zero: values is never empty
    assert.are.same({ { 0, 0, 0 }, { 0, 0, 0 } }, Z:to_dense():totable())
  end)

  it('t() transposes, with the columns of each row sorted', function()
    local T = sparse.from_dense(fused.tensor(DENSE, F64)):t()
    assert.are.same({ 4, 3 }, T:size())
    assert.are.same(fused.tensor(DENSE, F64):t():contiguous():totable(), T:to_dense():totable())
    assert.are.same({ 3, 1, 3 }, { T.col_idx:totable()[1], T.col_idx:totable()[2], T.col_idx:totable()[4] })
  end)

  it('converts its values and prints its size, dtype and first entries', function()
    local S = sparse.from_coo(ROWS, COLS, VALUES, { 3, 4 }, F64)
    assert.are.equal('float32', S:float().dtype)
    assert.are.equal(S, S:double())
    local text = tostring(S)
    assert.truthy(text:find('fused.sparse.CSR 3 x 4, 4 entries, float64 on cpu', 1, true), text)
    assert.truthy(text:find('(3, 4)  -2', 1, true), text)
    local many = sparse.from_dense(fused.ones({ 4, 4 }))
    assert.truthy(tostring(many):find('... (6 more)', 1, true))
  end)

  it('mm is the dense product, with the bias and relu folded in', function()
    fused.manual_seed(3)
    for _, dtype in ipairs({ 'float32', 'float64' }) do
      local o = { dtype = dtype }
      local A = fused.randn({ 30, 20 }, o) * fused.rand({ 30, 20 }, o):sub(0.8):d_relu() -- a fifth kept
      local X, b = fused.randn({ 20, 7 }, o), fused.randn({ 7 }, o)
      local S = sparse.from_dense(A)
      local tol = dtype == 'float64' and 1e-12 or 1e-5
      close(sparse.mm(S, X), fused.matmul(A, X), tol, dtype .. ' S X')
      close(sparse.mm(S, X, { bias = b }), fused.addmm(b, A, X), tol, dtype .. ' S X + b')
      close(sparse.mm(S, X, { bias = b, activation = 'relu' }), fused.addmm(b, A, X):relu(), tol, dtype .. ' relu')
      local out = fused.zeros({ 30, 7 }, o)
      assert.are.equal(out, sparse.mm(S, X, { out = out }))
      close(out, fused.matmul(A, X), tol, dtype .. ' out')
    end
  end)

  it('normalize_adjacency gives D^-1/2 (A + I) D^-1/2', function()
    local A = sparse.from_coo({ 1, 2, 2, 3 }, { 2, 1, 3, 2 }, { 1, 1, 1, 1 }, { 3, 3 }, F64)
    local d = { 2, 3, 2 } -- degrees with the self-loops
    local want = {}
    for i = 1, 3 do
      want[i] = {}
      for j = 1, 3 do
        local a = (math.abs(i - j) == 1 and 1 or 0) + (i == j and 1 or 0)
        want[i][j] = a / math.sqrt(d[i] * d[j])
      end
    end
    close(sparse.normalize_adjacency(A):to_dense(), fused.tensor(want, F64), 1e-15, 'normalised')
    err(function() sparse.normalize_adjacency(sparse.from_coo({ 1 }, { 2 }, { 1 }, { 2, 3 })) end,
        "sparse.normalize_adjacency: argument 'A' expected a square sparse matrix, got 2 x 3")
    err(function() sparse.normalize_adjacency(sparse.from_coo({ 1 }, { 1 }, { -1 }, { 2, 2 })) end,
        "expected rows of A + I that sum above 0, got 0 in row 1")
  end)

  describe('malformed input is an error naming the argument', function()
    it('row pointers', function()
      err(function() sparse.csr({ 0, 2, 1, 4 }, { 1, 2, 3, 4 }, { 1, 1, 1, 1 }, { 3, 4 }) end,
          "sparse.csr: argument 'row_ptr' expected offsets that never decrease, got 1 after 2 at position 3")
      err(function() sparse.csr({ 0, 1, 2, 3 }, { 1, 2, 3, 4 }, { 1, 1, 1, 1 }, { 3, 4 }) end,
          "sparse.csr: argument 'row_ptr' expected 4 last (the number of entries, the length of 'col_idx'), got 3")
      err(function() sparse.csr({ 1, 2, 3, 4 }, { 1, 2, 3, 4 }, { 1, 1, 1, 1 }, { 3, 4 }) end,
          "sparse.csr: argument 'row_ptr' expected 0 first, got 1")
      err(function() sparse.csr({ 0, 4 }, { 1, 2, 3, 4 }, { 1, 1, 1, 1 }, { 3, 4 }) end,
          "sparse.csr: argument 'row_ptr' expected 4 offsets (rows + 1), got 2")
    end)

    it('indices out of range, not integers, or of another type', function()
      err(function() sparse.csr({ 0, 1, 2 }, { 1, 5 }, { 1, 1 }, { 2, 4 }) end,
          "sparse.csr: argument 'col_idx' expected column indices 1 to 4, got 5 at position 2")
      err(function() sparse.from_coo({ 1, 3 }, { 1, 1 }, { 1, 1 }, { 2, 2 }) end,
          "sparse.from_coo: argument 'rows' expected row indices 1 to 2, got 3 at position 2")
      err(function() sparse.from_coo({ 1, 2 }, { 0, 1 }, { 1, 1 }, { 2, 2 }) end,
          "sparse.from_coo: argument 'cols' expected column indices 1 to 2, got 0 at position 1")
      err(function() sparse.from_coo({ 1, 1.5 }, { 1, 1 }, { 1, 1 }, { 2, 2 }) end,
          "sparse.from_coo: argument 'rows' expected integers, got 1.5 at position 2")
      err(function() sparse.from_coo({ 1, '2' }, { 1, 1 }, { 1, 1 }, { 2, 2 }) end,
          "sparse.from_coo: argument 'rows' expected integers, got \"2\" at position 2")
      err(function() sparse.from_coo(fused.tensor({ 1, 2 }), { 1, 1 }, { 1, 1 }, { 2, 2 }) end,
          "sparse.from_coo: argument 'rows' expected a 1-D int64 tensor or a list of integers, got a float32 tensor")
      err(function() sparse.from_coo({}, {}, {}, { 2, 2 }) end,
          "sparse.from_coo: argument 'rows' expected a non-empty list of integers or an int64 tensor, got {}")
    end)

    it('lengths, sizes and options', function()
      err(function() sparse.from_coo({ 1, 2 }, { 1 }, { 1, 1 }, { 2, 2 }) end,
          "sparse.from_coo: argument 'cols' expected 2 entries (as 'rows'), got 1")
      err(function() sparse.from_coo({ 1, 2 }, { 1, 2 }, { 1 }, { 2, 2 }) end,
          "sparse.from_coo: argument 'values' expected 2 entries (as 'rows'), got 1")
      err(function() sparse.csr({ 0, 1, 2 }, { 1, 2 }, { 1 }, { 2, 2 }) end,
          "sparse.csr: argument 'values' expected 2 entries (as 'col_idx'), got 1")
      err(function() sparse.from_coo({ 1 }, { 1 }, { 1 }, { 2, 0 }) end,
          "sparse.from_coo: argument 'size' expected {rows, columns}, positive integers, got {2, 0}")
      err(function() sparse.from_coo({ 1 }, { 1 }, { 1 }, { 2, 2 }, { dtype = 'int64' }) end,
          "sparse.from_coo: option 'dtype' expected 'float32' or 'float64', got 'int64'")
      err(function() sparse.from_coo({ 1 }, { 1 }, { 1 }, { 2, 2 }, { dtpye = 'float64' }) end,
          "sparse.from_coo: unknown option 'dtpye'")
      err(function() sparse.from_dense(fused.zeros({ 2, 2, 2 })) end,
          "sparse.from_dense: argument 'A' expected a 2-D float32 or float64 tensor, got a float32 tensor of shape [2, 2, 2]")
    end)

    it('the C product checks the structure it is given before reading through it', function()
      local ffi = require 'ffi'
      local I64 = { dtype = 'int64' }
      local out, x = fused.zeros({ 2, 3 }), fused.zeros({ 2, 3 })
      local function spmm(row_ptr, col_idx)
        assert.are.equal(-1, fused.C.fused_spmm(out, fused.tensor(row_ptr, I64), fused.tensor(col_idx, I64),
                                                fused.zeros({ #col_idx }), x, nil, 0))
        return ffi.string(fused.C.fused_last_error())
      end
      assert.truthy(spmm({ 0, 1, 2 }, { 1, 9 }):find("sparse.mm: argument 'col_idx' expected column indices 1 to 2, got 9 at position 2", 1, true))
      assert.truthy(spmm({ 0, 3, 2 }, { 1, 2 }):find("argument 'row_ptr' expected offsets that never decrease", 1, true))
      assert.truthy(spmm({ 0, 1, 1 }, { 1, 2 }):find("argument 'row_ptr' expected 2 last", 1, true))
    end)

    it('the C from_coo refuses a column count whose workspace size overflows', function()
      local ffi = require 'ffi'
      local I64 = { dtype = 'int64' }
      local function from_coo(n_cols)
        local row_ptr, col_idx, values = fused.empty({ 2 }, I64), fused.empty({ 1 }, I64), fused.empty({ 1 }, F64)
        assert.are.equal(-1, fused.C.fused_csr_from_coo(row_ptr, col_idx, values, ffi.new('int64_t[1]'),
                                                        fused.tensor({ 1 }, I64), fused.tensor({ 1 }, I64),
                                                        fused.tensor({ 1 }, F64), n_cols))
        return ffi.string(fused.C.fused_last_error())
      end
      -- (2^61 + 1) * 8 bytes wrapped round to 8, and the sort wrote 2^61 counts past them.
      for _, n_cols in ipairs({ 2LL ^ 61, 2LL ^ 62 + 7, 0x7fffffffffffffffLL }) do
        assert.truthy(from_coo(n_cols):find("csr_from_coo: argument 'n_cols' is too large: a workspace of", 1, true))
      end
    end)

    it('mm: operands that do not fit, and misuse of the type', function()
      local S = sparse.from_coo(ROWS, COLS, VALUES, { 3, 4 })
      err(function() sparse.mm(fused.zeros({ 3, 4 }), fused.zeros({ 4, 2 })) end,
          "sparse.mm: argument 'S' expected a sparse matrix (fused.sparse), got tensor")
      err(function() sparse.mm(S, fused.zeros({ 3, 2 })) end,
          "sparse.mm: argument 'X' expected 4 x K (the columns of 'S', 3 x 4), got [3, 2]")
      err(function() sparse.mm(S, fused.zeros({ 4, 2 }, F64)) end,
          "sparse.mm: argument 'X' expected float32 on cpu (as 'S'), got float64 on cpu")
      err(function() sparse.mm(S, fused.zeros({ 4, 2 }), { bias = fused.zeros({ 3 }) }) end,
          "sparse.mm: argument 'bias' expected shape [2], got [3]")
      err(function() sparse.mm(S, fused.zeros({ 4, 2 }), { activation = 'tanh' }) end,
          "sparse.mm: option 'activation' expected 'relu' or nil, got 'tanh'")
      err(function() return S.nnz() end, "fused.sparse.CSR.nnz: expected a sparse matrix to call it on, got nil")
      err(function() return S.rows end, "fused.sparse.CSR has no method or field 'rows'")
      err(function() S:to('int64') end, "sparse.to: expected a floating dtype ('float32' or 'float64'), got 'int64'")
    end)
  end)
end)
