-- Tensor math: elementwise ops, matrix products, reductions, cat. Each allocates its result and
-- makes non-contiguous inputs contiguous first, so any view works; the C kernels do the rest.
local ffi = require 'ffi'
local lib = require 'fused.lib'
local options = require 'fused.options'
local tensor = require 'fused.tensor'

local C, check = lib.C, lib.check
local Tensor, expect, empty_like = tensor.Tensor, tensor.expect, tensor.empty_like
local M = {}

local function contiguous(t)
  if C.fused_tensor_is_contiguous(t) ~= 0 then return t end
  return t:clone()
end

-- Elementwise functions of one tensor: fused.tanh(t) and t:tanh(). alpha is ELU's; the
-- others take no second argument, so that t:exp(2) is an error rather than ignored.
local unary_ops = {
  neg = C.FUSED_NEG, exp = C.FUSED_EXP, log = C.FUSED_LOG, tanh = C.FUSED_TANH,
  sigmoid = C.FUSED_SIGMOID, elu = C.FUSED_ELU, relu = C.FUSED_RELU, sqrt = C.FUSED_SQRT,
  abs = C.FUSED_ABS, d_exp = C.FUSED_D_EXP, d_log = C.FUSED_D_LOG, d_tanh = C.FUSED_D_TANH,
  d_sigmoid = C.FUSED_D_SIGMOID, d_elu = C.FUSED_D_ELU, d_relu = C.FUSED_D_RELU,
}
local takes_alpha = { elu = true, d_elu = true }
for name, op in pairs(unary_ops) do
  local function f(t, alpha)
    t = contiguous(expect(t, name, 'input'))
    if takes_alpha[name] then
      alpha = tensor.expect_number(alpha == nil and 1 or alpha, name, 'alpha')
    elseif alpha ~= nil then
      error(string.format("%s: expected one tensor, got a second argument (%s)", name,
                          tensor.type_name(alpha)), 2)
    end
    local out = empty_like(t)
    check(C.fused_unary(op, out, t, alpha or 1))
    return out
  end
  M[name], Tensor[name] = f, f
end

-- Raises "fn: argument 'arg' expected a tensor or a number, got <type>" unless x is a tensor.
local function expect_operand(x, fn, arg)
  if not tensor.is_tensor(x) then
    error(string.format("%s: argument '%s' expected a tensor or a number, got %s", fn, arg,
                        tensor.type_name(x)), 3)
  end
  return x
end

-- a op b where either may be a number (not both): a tensor's shape must match the other's.
-- rop is op with its operands swapped (scalar - a, say); where there is none (pow) a number a
-- becomes a tensor full of it.
local function binary(name, op, rop)
  return function(a, b)
    if type(b) == 'number' then
      a = contiguous(expect_operand(a, name, 'a'))
      local out = empty_like(a)
      check(C.fused_binary_scalar(op, out, a, b))
      return out
    elseif type(a) == 'number' then
      b = contiguous(expect_operand(b, name, 'b'))
      local out = empty_like(b)
      if rop then
        check(C.fused_binary_scalar(rop, out, b, a))
      else
        check(C.fused_fill(out, a))
        check(C.fused_binary(op, out, out, b))
      end
      return out
    end
    a, b = contiguous(expect_operand(a, name, 'a')), contiguous(expect_operand(b, name, 'b'))
    local out = empty_like(a)
    check(C.fused_binary(op, out, a, b))
    return out
  end
end
M.add = binary('add', C.FUSED_ADD, C.FUSED_ADD)
M.sub = binary('sub', C.FUSED_SUB, C.FUSED_RSUB)
M.mul = binary('mul', C.FUSED_MUL, C.FUSED_MUL)
M.div = binary('div', C.FUSED_DIV, C.FUSED_RDIV)
M.pow = binary('pow', C.FUSED_POW, nil)
M.maximum = binary('maximum', C.FUSED_MAX, C.FUSED_MAX)
M.minimum = binary('minimum', C.FUSED_MIN, C.FUSED_MIN)
for _, name in ipairs({ 'add', 'sub', 'mul', 'div', 'pow', 'maximum', 'minimum' }) do
  Tensor[name] = M[name]
end

-- fused.addmm(bias, a, b, {beta=1, alpha=1}) = beta * bias + alpha * a @ b; bias is a vector
-- of the result's columns (added to each row) or of the result's shape.
local function gemm_ready(t)
  if t.ndim ~= 2 then return t end -- the C check names the wrong number of dims
  if C.fused_tensor_is_contiguous(t) ~= 0 or C.fused_tensor_is_contiguous(t:t()) ~= 0 then
    return t
  end
  return t:clone()
end

local out_sizes = ffi.new('int64_t[2]')
local function matmul_out(a, b)
  out_sizes[0], out_sizes[1] = a.sizes[0], b.ndim == 2 and b.sizes[1] or 1
  return tensor.new(2, out_sizes, a.scalar_type, a.device_type)
end

function M.matmul(a, b)
  a, b = gemm_ready(expect(a, 'matmul', 'a')), gemm_ready(expect(b, 'matmul', 'b'))
  if a.ndim ~= 2 then error(string.format("matmul: argument 'a' expected 2 dims, got %d", a.ndim), 2) end
  local out = matmul_out(a, b)
  check(C.fused_addmm(out, nil, a, b, 0, 1))
  return out
end

function M.addmm(bias, a, b, opts)
  expect(bias, 'addmm', 'bias')
  a, b = gemm_ready(expect(a, 'addmm', 'a')), gemm_ready(expect(b, 'addmm', 'b'))
  if a.ndim ~= 2 then error(string.format("addmm: argument 'a' expected 2 dims, got %d", a.ndim), 2) end
  opts = options.check(opts, 'addmm', { 'alpha', 'beta' })
  local beta = tensor.expect_number(opts.beta == nil and 1 or opts.beta, 'addmm', 'opts.beta')
  local alpha = tensor.expect_number(opts.alpha == nil and 1 or opts.alpha, 'addmm', 'opts.alpha')
  local out = matmul_out(a, b)
  check(C.fused_addmm(out, contiguous(bias), a, b, beta, alpha))
  return out
end
Tensor.matmul = M.matmul

-- t:sum(dim) keeps dim with size 1, as Torch7 does; t:sum() is the sum of all, a number.
function M.sum(t, dim)
  t = contiguous(expect(t, 'sum', 'input'))
  if dim == nil then return M.sum(t:view(-1), 1):item() end
  dim = tensor.check_dim(t, dim, 'sum')
  local shape = t:shape()
  shape[dim] = 1
  local out = tensor.empty(shape, { dtype = t.dtype, device = t.device })
  check(C.fused_sum_dim(out, t, dim - 1))
  return out
end

function M.mean(t, dim)
  expect(t, 'mean', 'input')
  if dim == nil then return M.sum(t) / t:numel() end
  dim = tensor.check_dim(t, dim, 'mean')
  return M.sum(t, dim) / t:size(dim)
end
Tensor.sum, Tensor.mean = M.sum, M.mean

-- fused.cat({a, b, ...}, dim): sizes agree except along dim.
local cat_inputs = ffi.typeof('const fused_tensor *[?]')
function M.cat(list, dim)
  local n = type(list) == 'table' and tensor.sequence_length(list)
  if not n or n == 0 then
    error("cat: argument 'tensors' expected a non-empty list of tensors, got "
          .. (type(list) == 'table' and tensor.show_list(list) or tensor.type_name(list)), 2)
  end
  local inputs = cat_inputs(n)
  local keep = {} -- the contiguous copies must live through the call
  for i, t in ipairs(list) do
    keep[i] = contiguous(expect(t, 'cat', 'tensors[' .. i .. ']'))
    inputs[i - 1] = keep[i]
  end
  local first = keep[1]
  dim = tensor.check_dim(first, dim or 1, 'cat')
  local shape = first:shape()
  shape[dim] = 0
  for _, t in ipairs(keep) do
    if t.ndim ~= first.ndim then
      error(string.format("cat: every tensor expected %d dims (as tensors[1]), got %d", first.ndim, t.ndim), 2)
    end
    shape[dim] = shape[dim] + tonumber(t.sizes[dim - 1])
  end
  local out = tensor.empty(shape, { dtype = first.dtype, device = first.device })
  check(C.fused_cat(out, inputs, n, dim - 1))
  return out
end

local mt = tensor.metatable
mt.__add, mt.__sub, mt.__mul, mt.__div, mt.__pow = M.add, M.sub, M.mul, M.div, M.pow
mt.__unm = function(t) return M.neg(t) end -- Lua passes t twice

return M
