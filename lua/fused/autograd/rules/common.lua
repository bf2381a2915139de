-- What the rules share: a gradient summed down to its operand's shape (the operand was
-- broadcast), zeros, and a dim as the op read it (1-based, negative from the end).
local argcheck = require 'fused.check'
local tensor = require 'fused.tensor'
local factory = require 'fused.factory'

local M = {}

local same_shape = require('fused.ops.broadcast').same_shape

-- g for an operand x of the op: nil for a number, g summed over the dims x was broadcast along.
function M.to_operand(g, x)
  if not argcheck.is_tensor(x) then return nil end
  if same_shape(g, x) then return g end
  return g:sum_to_size(x:shape())
end

function M.zeros_like(t) return tensor.empty_like(t):zero_() end

-- The op layer's functions (ops.exp(t), ...), found when a rule first runs (the op layer loads
-- the rules). The rules call these and the operators, never the methods whose meaning
-- Torch7 mode changes (t:exp() is in place there: spec/th_library_forms_spec.lua).
M.ops = setmetatable({}, { __index = function(_, name) return require('fused.ops')[name] end })

-- dim of a tensor of ndim dims (nil: default) as a positive 1-based dim.
function M.dim(dim, ndim, default)
  dim = dim or default or 1
  return dim < 0 and ndim + 1 + dim or dim
end

-- Zeros of t's shape with g added at the positions index names along dim (index and g of one
-- shape; every other coordinate its own): the gradient of gather, and of sort's values.
function M.scatter_add(t, dim, index, g)
  local fused = require 'fused'
  local coords = {}
  for d = 1, t.ndim do
    if d == dim then
      coords[d] = index:contiguous():view(-1)
    else
      local shape = {}
      for e = 1, index.ndim do shape[e] = 1 end
      shape[d] = index:size(d)
      coords[d] = fused.arange(1, index:size(d) + 1, { device = t.device }):view(shape)
                    :expand(index:shape()):contiguous():view(-1)
    end
  end
  return M.zeros_like(t):index_put_(coords, g:contiguous():view(-1), true)
end

-- {out = <a tensor of shape `shape` and like's dtype and device>} for the rule's result named
-- key: the one the node's buffers kept from the last step when it fits, else a new one kept
-- there; nil where the node keeps none (fused.grad: a new result).
function M.out(node, key, shape, like)
  local buffers = node.buffers
  if not buffers then return nil end
  local t = buffers[key]
  local fits = t and t.dtype == like.dtype and t.device == like.device and t.ndim == #shape
  for d = 1, #shape do fits = fits and t.sizes[d - 1] == shape[d] end
  if not fits then
    t = factory.empty(shape, { dtype = like.dtype, device = like.device })
    buffers[key] = t
  end
  return { out = t }
end

M.same_shape = same_shape
return M
