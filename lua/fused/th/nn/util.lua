-- What the th nn classes share: Torch7's tensor type names, the empty tensors a module starts
-- with, tables of tensors (nngraph and the table modules), and the storage layout that
-- getParameters() and clone() keep: tensors that share memory share it in the result too.
local ffi = require 'ffi'
local fused = require 'fused'
local tensor = require 'fused.tensor'
local dt = require 'fused.dtype'

local M = {}

local is_tensor = fused.is_tensor
M.is_tensor = is_tensor

-- Torch7's type names of the floating tensors a module holds, and what each is here.
M.TYPES = {
  ['torch.FloatTensor'] = { 'float32', 'cpu' }, ['torch.DoubleTensor'] = { 'float64', 'cpu' },
  ['torch.CudaTensor'] = { 'float32', 'cuda' }, ['torch.CudaDoubleTensor'] = { 'float64', 'cuda' },
}

-- Torch7's default tensor type (torch.setdefaulttensortype, where the torch package has it):
-- DoubleTensor unless changed, as in Torch7.
function M.default_type()
  local torch = rawget(_G, 'torch')
  local get = type(torch) == 'table' and rawget(torch, 'getdefaulttensortype')
  local name = get and get() or 'torch.DoubleTensor'
  return M.TYPES[name] and name or 'torch.DoubleTensor'
end

-- The options of a new tensor of Torch7's type `name` (default: the default type).
function M.options(name)
  local t = M.TYPES[name or M.default_type()]
  return { dtype = t[1], device = t[2] }
end

-- Torch7's type name of tensor t's dtype and device.
function M.type_of(t)
  for name, v in pairs(M.TYPES) do
    if v[1] == t.dtype and v[2] == t.device then return name end
  end
  return 'torch.' .. t.dtype .. 'Tensor'
end

-- An empty tensor, as Torch7's torch.Tensor() of a module's output and gradInput.
function M.empty(name) return fused.empty({ 0 }, M.options(name)) end

-- Tables of tensors (any nesting), as nngraph's and the table modules' inputs ----------------

-- a + b, both tensors or tables of the same nesting: new tensors, a and b untouched.
function M.add(a, b)
  if is_tensor(a) then return fused.add(a, b) end
  local out = {}
  for k, v in pairs(a) do out[k] = M.add(v, b[k]) end
  return out
end

-- Zeros shaped as x (a tensor or a table of them).
function M.zeros_like(x)
  if is_tensor(x) then return fused.zeros(x:shape(), { dtype = x.dtype, device = x.device }) end
  local out = {}
  for k, v in pairs(x) do out[k] = M.zeros_like(v) end
  return out
end

-- Storages ------------------------------------------------------------------------------------

local function address(p) return tonumber(ffi.cast('intptr_t', p)) end

-- The elements t reaches from its first (its strides are never negative).
local function extent(t)
  local n = 1
  for d = 0, t.ndim - 1 do
    if t.sizes[d] == 0 then return 0 end
    n = n + tonumber((t.sizes[d] - 1) * t.strides[d])
  end
  return n
end

-- The distinct tensors of `list` grouped by the storage they share, in the order first seen:
-- each group {anchor = the member whose data comes first, span = elements from it to the last
-- one reached, offsets = {[member] = its first element's offset from the anchor's}}.
function M.storage_groups(list)
  local groups, by_storage, seen = {}, {}, {}
  for _, t in ipairs(list) do
    if not seen[t] then
      seen[t] = true
      local key = address(t.storage)
      local g = by_storage[key]
      if not g then
        g = { members = {} }
        by_storage[key] = g
        groups[#groups + 1] = g
      end
      g.members[#g.members + 1] = t
    end
  end
  for _, g in ipairs(groups) do
    local first
    for _, t in ipairs(g.members) do
      if not first or address(t.data) < address(first.data) then first = t end
    end
    local size = dt.sizes[first.scalar_type]
    g.anchor, g.span, g.offsets = first, 0, {}
    for _, t in ipairs(g.members) do
      local offset = (address(t.data) - address(first.data)) / size
      g.offsets[t] = offset
      g.span = math.max(g.span, offset + extent(t))
    end
  end
  return groups
end

-- The group's memory as one 1-D tensor (a view of the anchor's storage).
function M.span_view(g)
  local sizes, strides = ffi.new('int64_t[1]', g.span), ffi.new('int64_t[1]', 1)
  return tensor.make_view(g.anchor, 1, sizes, strides, 0)
end

-- A view of `base` (1-D, contiguous) laid out as t: t's sizes and strides from element offset.
function M.view_like(base, offset, t)
  return tensor.make_view(base, t.ndim, t.sizes, t.strides, offset)
end

M.set = tensor.set

return M
