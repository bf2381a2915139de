-- Matrix products: fused.matmul(a, b), fused.addmm(bias, a, b, {beta=1, alpha=1}) = beta * bias
-- + alpha * a @ b (bias a vector of the result's columns, added to every row, or of its
-- shape), and t:addmm_(a, b, {beta=1, alpha=1}): t = beta * t + alpha * a @ b. a and b may be
-- transposed views; other views are copied first. {out = t} as every op (ops/out.lua).
local lib = require 'fused.lib'
local options = require 'fused.options'
local argcheck = require 'fused.check'
local out_ = require 'fused.ops.out'
local dt = require 'fused.dtype'
local blame = require 'fused.blame'

local C, check, expect = lib.C, argcheck.c_status, argcheck.expect
local contiguous, finish = out_.contiguous, out_.finish
local M = {}

-- beta and alpha of opts (checked: its keys among `accepted`), default 1.
local function scales(opts, fn, accepted)
  opts = options.check(opts, fn, accepted)
  for _, name in ipairs({ 'beta', 'alpha' }) do
    if opts[name] ~= nil and type(opts[name]) ~= 'number' then
      blame(string.format("%s: option '%s' expected a number, got %s", fn, name, argcheck.type_name(opts[name])))
    end
  end
  return opts.beta or 1, opts.alpha or 1, opts.out
end

local function gemm_ready(t, fn, arg)
  expect(t, fn, arg)
  if t.ndim ~= 2 then return t end -- the C check names the wrong number of dims
  if C.fused_tensor_is_contiguous(t) == 1 or C.fused_tensor_is_contiguous(t:t()) == 1 then
    return t
  end
  return t:clone()
end

local sizes = out_.sizes()
local function product(fn, out, bias, a, b, beta, alpha)
  a, b = gemm_ready(a, fn, 'a'), gemm_ready(b, fn, 'b')
  if a.ndim ~= 2 then blame(string.format("%s: argument 'a' expected 2 dims, got %d", fn, a.ndim)) end
  sizes[0], sizes[1] = a.sizes[0], b.ndim == 2 and b.sizes[1] or 1
  local dst = out_.target(fn, out, 2, sizes, a.scalar_type, a.device_type)
  check(C.fused_addmm(dst, bias, a, b, beta, alpha))
  return finish(out, dst)
end

function M.matmul(a, b, opts)
  return product('matmul', out_.option(opts, 'matmul'), nil, a, b, 0, 1)
end

function M.addmm(bias, a, b, opts)
  bias = contiguous(expect(bias, 'addmm', 'bias'))
  local beta, alpha, out = scales(opts, 'addmm', { 'alpha', 'beta', 'out' })
  argcheck.expect_like(bias, expect(a, 'addmm', 'a'), 'addmm', 'bias', 'a') -- C would name out
  return product('addmm', out, bias, a, b, beta, alpha)
end

-- The kernel reads bias before it writes out, so out may be bias itself; t keeps its shape,
-- which must be the product's.
function M.addmm_(t, a, b, opts)
  argcheck.expect_writable(t, 'addmm_', 'self')
  local beta, alpha = scales(opts, 'addmm_', { 'alpha', 'beta' })
  expect(a, 'addmm_', 'a'); expect(b, 'addmm_', 'b')
  argcheck.expect_like(a, t, 'addmm_', 'a', 'self'); argcheck.expect_like(b, t, 'addmm_', 'b', 'self')
  local rows, cols = a.ndim == 2 and a:size(1), b.ndim == 2 and b:size(2)
  if rows and cols and (t.ndim ~= 2 or t:size(1) ~= rows or t:size(2) ~= cols) then
    blame(string.format("addmm_: the result's shape [%d, %d] differs from 'self''s [%s], which an "
                        .. "in-place op keeps", rows, cols, table.concat(t:shape(), ', ')))
  end
  return product('addmm_', t, contiguous(t), a, b, beta, alpha)
end

-- mv, outer and bmm compute through matmul's C, whose checks would name matmul: theirs come
-- first. a and b (named names) of one floating dtype and device.
local function expect_operands(fn, a, b, names)
  if not dt.is_floating[a.scalar_type] then
    blame(string.format("%s: argument '%s' expected a floating dtype (%s), got %s", fn, names[1],
                        dt.floating_names(), a.dtype))
  end
  argcheck.expect_like(b, a, fn, names[2], names[1])
end

-- mv(A, v): A (m x n) times v (n) is a vector (m).
function M.mv(a, v, opts)
  expect(a, 'mv', 'a'); expect(v, 'mv', 'v')
  if a.ndim ~= 2 or v.ndim ~= 1 then
    blame(string.format("mv: expected a matrix 'a' and a vector 'v', got %d and %d dims", a.ndim, v.ndim))
  end
  expect_operands('mv', a, v, { 'a', 'v' })
  if v:size(1) ~= a:size(2) then
    blame(string.format("mv: argument 'v' expected %d elements (the columns of 'a', shape [%s]), got %d",
                        a:size(2), table.concat(a:shape(), ', '), v:size(1)))
  end
  local out = out_.option(opts, 'mv')
  sizes[0] = a.sizes[0]
  local dst = out_.target('mv', out, 1, sizes, a.scalar_type, a.device_type)
  product('mv', dst:view(-1, 1), nil, a, v:reshape(-1, 1), 0, 1)
  return finish(out, dst)
end

-- outer(a, b): vectors a (n) and b (m) give the matrix a_i b_j (n x m).
function M.outer(a, b, opts)
  expect(a, 'outer', 'a'); expect(b, 'outer', 'b')
  if a.ndim ~= 1 or b.ndim ~= 1 then
    blame(string.format("outer: expected two vectors, got %d and %d dims", a.ndim, b.ndim))
  end
  expect_operands('outer', a, b, { 'a', 'b' })
  return product('outer', out_.option(opts, 'outer'), nil, a:reshape(-1, 1), b:reshape(1, -1), 0, 1)
end

-- bmm(a, b): batches of matrices, a (B x n x k) and b (B x k x m) give B x n x m, one GEMM
-- per batch.
local bmm_sizes = out_.sizes()
function M.bmm(a, b, opts)
  expect(a, 'bmm', 'a'); expect(b, 'bmm', 'b')
  if a.ndim ~= 3 or b.ndim ~= 3 or a.sizes[0] ~= b.sizes[0] then
    blame(string.format("bmm: expected two 3-D tensors of one batch size, got shapes {%s} and {%s}",
                        table.concat(a:shape(), ', '), table.concat(b:shape(), ', ')))
  end
  expect_operands('bmm', a, b, { 'a', 'b' })
  if b.sizes[1] ~= a.sizes[2] then
    blame(string.format("bmm: argument 'b' expected %d rows in each matrix (the columns of 'a''s, shape "
                        .. "[%s]), got shape [%s]", a:size(3), table.concat(a:shape(), ', '),
                        table.concat(b:shape(), ', ')))
  end
  bmm_sizes[0], bmm_sizes[1], bmm_sizes[2] = a.sizes[0], a.sizes[1], b.sizes[2]
  local out = out_.option(opts, 'bmm')
  local dst = out_.target('bmm', out, 3, bmm_sizes, a.scalar_type, a.device_type)
  for i = 1, a:size(1) do product('bmm', dst:select(1, i), nil, a:select(1, i), b:select(1, i), 0, 1) end
  return finish(out, dst)
end

return M
