-- Views, as PyTorch's: they share t's storage. narrow, select, chunk (a list of narrows),
-- unbind (a list of selects), transpose and t, view and reshape (a copy when t is not
-- contiguous), unsqueeze, squeeze, permute, expand (a stride-0 view: how a broadcast operand is
-- made), flatten (a copy when the dims do not merge), split (a list of views). Sizes and dims as a list or as numbers; dims
-- are 1-based, negative from the end.
local ffi = require 'ffi'
local tensor = require 'fused.tensor'
local argcheck = require 'fused.check'
local blame = require 'fused.blame'

local Tensor, make_view, type_name = tensor.Tensor, tensor.make_view, argcheck.type_name
local sizes_buf, strides_buf = ffi.new('int64_t[8]'), ffi.new('int64_t[8]')
local MAX_DIMS = 8

local function copy_layout(t)
  for d = 0, t.ndim - 1 do
    sizes_buf[d] = t.sizes[d]
    strides_buf[d] = t.strides[d]
  end
end

-- t:narrow(dim, start, length): elements start .. start+length-1 along dim (1-based).
function Tensor.narrow(t, dim, start, length)
  dim = argcheck.check_dim(t, dim, 'narrow')
  local size = tonumber(t.sizes[dim - 1])
  -- start may be size + 1 when length is 0: an empty narrow at the end, as PyTorch's.
  if type(start) ~= 'number' or start < 1 or start > size + 1 or start ~= math.floor(start) then
    error(string.format("narrow: argument 'start' expected 1..%d, got %s", size + 1, tostring(start)), 2)
  end
  if type(length) ~= 'number' or length < 0 or start + length - 1 > size or length ~= math.floor(length) then
    error(string.format("narrow: argument 'length' expected 0..%d (start %d, size %d), got %s",
                        size - start + 1, start, size, tostring(length)), 2)
  end
  copy_layout(t)
  sizes_buf[dim - 1] = length
  return make_view(t, t.ndim, sizes_buf, strides_buf, (start - 1) * t.strides[dim - 1])
end

-- t:select(dim, index): the slice at index, with dim removed (a 1-D tensor gives 1 element).
function Tensor.select(t, dim, index)
  dim = argcheck.check_dim(t, dim, 'select')
  local size = tonumber(t.sizes[dim - 1])
  if type(index) ~= 'number' or index < 1 or index > size or index ~= math.floor(index) then
    if size == 0 then
      error(string.format("select: argument 'index' got %s, but dim %d has size 0: no index to select",
                          tostring(index), dim), 2)
    end
    error(string.format("select: argument 'index' expected 1..%d, got %s", size, tostring(index)), 2)
  end
  if t.ndim == 1 then return t:narrow(1, index, 1) end
  local n = 0
  for d = 0, t.ndim - 1 do
    if d ~= dim - 1 then
      sizes_buf[n], strides_buf[n] = t.sizes[d], t.strides[d]
      n = n + 1
    end
  end
  return make_view(t, n, sizes_buf, strides_buf, (index - 1) * t.strides[dim - 1])
end

-- n pieces along dim, the last one smaller when the size does not divide (as torch.chunk).
function Tensor.chunk(t, n, dim)
  dim = argcheck.check_dim(t, dim or 1, 'chunk')
  if type(n) ~= 'number' or n < 1 or n ~= math.floor(n) then
    error("chunk: argument 'n' expected a positive integer, got " .. tostring(n), 2)
  end
  local size = tonumber(t.sizes[dim - 1])
  local step = math.ceil(size / n)
  local pieces = {}
  if size == 0 then -- n empty pieces, as torch.chunk (a step of 0 would not advance)
    for i = 1, n do pieces[i] = t:narrow(dim, 1, 0) end
    return pieces
  end
  for start = 1, size, step do
    pieces[#pieces + 1] = t:narrow(dim, start, math.min(step, size - start + 1))
  end
  return pieces
end

-- t:unbind(dim): the slices along dim (1 by default), each t:select(dim, i), as torch.unbind.
function Tensor.unbind(t, dim)
  dim = argcheck.check_dim(t, dim or 1, 'unbind')
  local pieces = {}
  for i = 1, t:size(dim) do pieces[i] = t:select(dim, i) end
  return pieces
end

function Tensor.transpose(t, dim1, dim2)
  local d1, d2 = argcheck.check_dim(t, dim1, 'transpose', 'dim1'), argcheck.check_dim(t, dim2, 'transpose', 'dim2')
  copy_layout(t)
  sizes_buf[d1 - 1], sizes_buf[d2 - 1] = t.sizes[d2 - 1], t.sizes[d1 - 1]
  strides_buf[d1 - 1], strides_buf[d2 - 1] = t.strides[d2 - 1], t.strides[d1 - 1]
  return make_view(t, t.ndim, sizes_buf, strides_buf, 0)
end

function Tensor.t(t)
  if t.ndim ~= 2 then
    error(string.format("t: expected a 2-D tensor, got %d dims (use transpose(dim1, dim2))", t.ndim), 2)
  end
  return t:transpose(1, 2)
end

-- A list from (list) or (n1, n2, ...); for fn, whose argument arg it is: anything after a
-- list is an error, as t:view({3, 2}, 5) must not drop the 5.
local function list_args(fn, arg, first, ...)
  if type(first) ~= 'table' then return { first, ... } end
  for i = 1, select('#', ...) do
    local x = select(i, ...)
    if x ~= nil then
      blame(string.format("%s: argument '%s' given as a list, got an extra argument %d after it: %s",
                          fn, arg, i + 1, argcheck.shown(x)))
    end
  end
  return first
end

-- A view of contiguous t with another shape of the same numel (one size may be -1), for fn
-- (view or reshape: the name its errors give).
local function reshaped(fn, t, shape, ...)
  shape = list_args(fn, 'shape', shape, ...)
  local n = type(shape) == 'table' and argcheck.sequence_length(shape)
  if not n then
    blame(string.format("%s: argument 'shape' expected a list of sizes (one may be -1), got %s", fn,
                        type(shape) == 'table' and argcheck.show_list(shape) or type_name(shape)))
  end
  -- The sizes besides the -1 are checked by parse_shape below.
  local resolved, known, infer = {}, 1, nil
  for i = 1, n do
    if shape[i] == -1 and not infer then infer = i
    elseif type(shape[i]) == 'number' then known = known * shape[i] end
    resolved[i] = shape[i]
  end
  if infer then
    if known < 1 or t:numel() % known ~= 0 then -- as PyTorch, -1 is ambiguous beside a 0
      blame(string.format("%s: argument 'shape' %s cannot hold %d elements whatever its -1", fn,
                          argcheck.show_list(shape), t:numel()))
    end
    resolved[infer] = t:numel() / known
  end
  local ndim, sizes = argcheck.parse_shape(resolved, fn)
  local numel = 1
  for i = 1, ndim do numel = numel * resolved[i] end
  if numel ~= t:numel() then
    blame(string.format("%s: argument 'shape' expected %d elements in all, got %d", fn,
                        t:numel(), numel))
  end
  local stride = 1
  for d = ndim - 1, 0, -1 do
    strides_buf[d] = stride
    stride = stride * math.max(tonumber(sizes[d]), 1) -- PyTorch's strides beside a size 0
  end
  return make_view(t, ndim, sizes, strides_buf, 0)
end

-- A view with another shape of the same numel (one size may be -1); t must be contiguous.
function Tensor.view(t, shape, ...)
  if not t:is_contiguous() then
    error("view: expected a contiguous tensor (use :reshape() or :contiguous())", 2)
  end
  return reshaped('view', t, shape, ...)
end

function Tensor.reshape(t, shape, ...) return reshaped('reshape', t:contiguous(), shape, ...) end


-- t:unsqueeze(dim): a dim of size 1 inserted at dim (1..ndim+1).
function Tensor.unsqueeze(t, dim)
  local n = t.ndim
  if type(dim) ~= 'number' or dim ~= math.floor(dim) or dim == 0 or dim > n + 1 or dim < -n - 1 then
    error(string.format("unsqueeze: argument 'dim' expected a dim in 1..%d, got %s", n + 1,
                        type(dim) == 'number' and tostring(dim) or type_name(dim)), 2)
  end
  if n == MAX_DIMS then error(string.format("unsqueeze: expected fewer than %d dims, got %d", MAX_DIMS, n), 2) end
  if dim < 0 then dim = n + dim + 2 end
  local at = 0
  for d = 0, n do
    if d == dim - 1 then
      sizes_buf[at] = 1
      strides_buf[at] = d < n and t.sizes[d] * t.strides[d] or 1
    else
      local src = d < dim - 1 and d or d - 1
      sizes_buf[at], strides_buf[at] = t.sizes[src], t.strides[src]
    end
    at = at + 1
  end
  return make_view(t, n + 1, sizes_buf, strides_buf, 0)
end

-- t:squeeze(): without its dims of size 1 (0-d if all are, as PyTorch); t:squeeze(dim): without
-- dim if its size is 1, else t.
function Tensor.squeeze(t, dim)
  if dim ~= nil then
    dim = argcheck.check_dim(t, dim, 'squeeze')
    if t.sizes[dim - 1] ~= 1 then return t end
  end
  local n = 0
  for d = 0, t.ndim - 1 do
    if t.sizes[d] ~= 1 or (dim ~= nil and d ~= dim - 1) then
      sizes_buf[n], strides_buf[n] = t.sizes[d], t.strides[d]
      n = n + 1
    end
  end
  return make_view(t, n, sizes_buf, strides_buf, 0) -- n 0: all dims were 1, 0-d as PyTorch's
end

-- t:permute(2, 1, 3) or t:permute({2, 1, 3}): dim d of the result is dim dims[d] of t.
function Tensor.permute(t, ...)
  local dims = list_args('permute', 'dims', ...)
  local n, seen = argcheck.sequence_length(dims), {}
  if n ~= t.ndim then
    error(string.format("permute: argument 'dims' expected a permutation of 1..%d, got %s", t.ndim,
                        argcheck.show_list(dims)), 2)
  end
  for i = 1, n do
    local d = argcheck.check_dim(t, dims[i], 'permute', 'dims')
    if seen[d] then
      error(string.format("permute: argument 'dims' expected a permutation of 1..%d, got %s (dim %d twice)",
                          t.ndim, argcheck.show_list(dims), d), 2)
    end
    seen[d] = true
    sizes_buf[i - 1], strides_buf[i - 1] = t.sizes[d - 1], t.strides[d - 1]
  end
  return make_view(t, n, sizes_buf, strides_buf, 0)
end

-- t:expand(sizes): a view of those sizes where t's dims of size 1 (and new leading dims)
-- repeat with stride 0; -1 keeps a size. Writing into it writes the shared elements.
function Tensor.expand(t, ...)
  local shape = list_args('expand', 'sizes', ...)
  local n = argcheck.sequence_length(shape)
  if not n or n < t.ndim or n > MAX_DIMS then
    error(string.format("expand: argument 'sizes' expected %d to %d sizes, got %s", t.ndim, MAX_DIMS,
                        type(shape) == 'table' and argcheck.show_list(shape) or type_name(shape)), 2)
  end
  local lead = n - t.ndim
  for i = 1, n do
    local want, d = shape[i], i - lead - 1 -- d: t's dim, 0-based, negative for a new one
    local size = d >= 0 and tonumber(t.sizes[d]) or 1
    if want == -1 and d >= 0 then want = size end
    if type(want) ~= 'number' or want < 0 or want ~= math.floor(want) or (size ~= 1 and want ~= size) then
      error(string.format("expand: argument 'sizes' %s does not fit shape %s: size %s at position %d "
                          .. "(only a size 1 repeats)", argcheck.show_list(shape),
                          argcheck.show_list(t:shape()), tostring(want), i), 2)
    end
    sizes_buf[i - 1] = want
    strides_buf[i - 1] = (d < 0 or (size == 1 and want ~= 1)) and 0 or t.strides[d]
  end
  return make_view(t, n, sizes_buf, strides_buf, 0)
end

-- t:flatten(start_dim, end_dim): dims start..end (default all) merged into one.
function Tensor.flatten(t, start_dim, end_dim)
  if t.ndim == 0 and start_dim == nil and end_dim == nil then return t:reshape(1) end -- as PyTorch
  start_dim = argcheck.check_dim(t, start_dim or 1, 'flatten', 'start_dim')
  end_dim = argcheck.check_dim(t, end_dim or -1, 'flatten', 'end_dim')
  if start_dim > end_dim then
    error(string.format("flatten: argument 'start_dim' (%d) expected at most 'end_dim' (%d)", start_dim, end_dim), 2)
  end
  local shape = t:shape()
  local merged = 1
  for d = start_dim, end_dim do merged = merged * shape[d] end
  local result = {}
  for d = 1, start_dim - 1 do result[#result + 1] = shape[d] end
  result[#result + 1] = merged
  for d = end_dim + 1, t.ndim do result[#result + 1] = shape[d] end
  return t:reshape(result)
end

-- t:split(size, dim): views of size along dim (1 by default), the last smaller when size does
-- not divide it; t:split({s1, s2, ...}, dim): views of those sizes, which must add up to it.
-- (t:chunk(n, dim) gives n pieces.)
function Tensor.split(t, split_size, dim)
  dim = argcheck.check_dim(t, dim or 1, 'split')
  local size = t:size(dim)
  local sizes = split_size
  if type(split_size) == 'number' then
    if split_size < 1 or split_size ~= math.floor(split_size) then
      error("split: argument 'split_size' expected a positive integer or a list of them, got "
            .. tostring(split_size), 2)
    end
    sizes = {}
    for start = 1, size, split_size do sizes[#sizes + 1] = math.min(split_size, size - start + 1) end
    if size == 0 then sizes[1] = 0 end -- one empty piece, as PyTorch's
  else
    local n = type(split_size) == 'table' and argcheck.sequence_length(split_size)
    local total = 0
    for i = 1, n or 0 do
      local s = split_size[i]
      if type(s) ~= 'number' or s < 0 or s ~= math.floor(s) then n = nil; break end
      total = total + s
    end
    if not n or n == 0 or total ~= size then
      error(string.format("split: argument 'split_size' expected a positive integer or sizes "
                          .. "(0 or more) adding up to %d (the size of dim %d), got %s", size, dim,
                          type(split_size) == 'table' and argcheck.show_list(split_size)
                          or type_name(split_size)), 2)
    end
  end
  local pieces, start = {}, 1
  for i, s in ipairs(sizes) do
    pieces[i] = t:narrow(dim, start, s)
    start = start + s
  end
  return pieces
end

-- The views above take no argument beyond their parameters (view, reshape, permute and expand
-- check their own): t:narrow(1, 1, 1, 9) is an error naming the 9, as the ops' are.
for _, name in ipairs({ 'narrow', 'select', 'chunk', 'unbind', 'transpose', 't', 'unsqueeze',
                        'squeeze', 'flatten', 'split' }) do
  Tensor[name] = argcheck.no_extra(name, Tensor[name])
end

return {}
