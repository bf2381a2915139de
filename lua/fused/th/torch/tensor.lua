-- Torch7's meanings of the Tensor methods whose meaning differs from fused's, in one table
-- (docs/torch7.md lists them): install() puts them in the shared method table when `fused th`
-- starts, uninstall() puts fused's back. Torch7 (TensorMath.lua) computes in place when a
-- method gets its operands alone (x:exp(), x:add(y)) and into self, result first, when it also
-- gets the source (y:exp(x), z:add(x, y)). Each form here computes with fused's functions
-- (fused.add, fused.exp_, ...), never with the methods it replaces.
local ffi = require 'ffi'
local blame = require 'fused.blame'
local argcheck = require 'fused.check'
local fused = require 'fused'
local tensor = require 'fused.tensor'
local types = require 'fused.th.torch.types'

local M = {}
local Tensor = tensor.methods() -- the table tensors read their methods from
local tensor_t = ffi.typeof('fused_tensor')

local function is_tensor(x) return ffi.istype(tensor_t, x) end

-- What fused's tensors lack of Torch7's storages (see x:storage() below): the 1-D views that
-- are storages, and the storage and offset each tensor was set onto.
local storages = setmetatable({}, { __mode = 'k' })
local placed = setmetatable({}, { __mode = 'k' })

-- self takes other's storage, sizes and strides (tensor.replace), and leaves any storage it
-- was set onto.
local function rebind(self, other)
  placed[self] = nil
  return tensor.replace(self, other)
end

-- The kinds of the arguments, 'T,n,...' ('T' a tensor, 'n' a number, else Lua's type): what
-- picks a form.
local function kinds(...)
  local n, k = select('#', ...), {}
  for i = 1, n do
    local a = select(i, ...)
    k[i] = is_tensor(a) and 'T' or type(a) == 'number' and 'n' or type(a)
  end
  return table.concat(k, ',')
end

M.kinds = kinds

local function bad_args(name, usage, ...)
  blame(string.format("%s: Torch7's forms are %s; got (%s)", name, usage, kinds(...)))
end

-- Torch7's result argument: self takes the sizes (a new storage where they differ) and the
-- elements of value, a tensor no one else holds; returns self.
local function into(self, value)
  if value.ndim == self.ndim and value:numel() == self:numel() then
    local same = true
    for d = 0, self.ndim - 1 do same = same and value.sizes[d] == self.sizes[d] end
    if same then return self:copy_(value) end
  end
  if value.scalar_type ~= self.scalar_type then value = value:to(self.dtype) end
  return rebind(self, value)
end

local forms = {}
M.forms = forms
-- Each form's result-first argument kinds after the result ('T' a tensor, 'n' a number):
-- torch.f(a, ...) (torch.lua) writes into a when the rest is one of these, else into a new
-- tensor.
local into_kinds = {}
M.into_kinds = into_kinds

-- x:f() in place; y:f(x) y = f(x).
for _, name in ipairs({ 'abs', 'exp', 'log', 'sqrt', 'tanh', 'sigmoid', 'neg', 'sign', 'floor',
                        'ceil', 'round', 'trunc' }) do
  local f, f_ = fused[name], fused[name .. '_']
  into_kinds[name] = { T = true }
  forms[name] = function(self, src, ...)
    if select('#', ...) > 0 or (src ~= nil and not is_tensor(src)) then
      bad_args(name, 'x:' .. name .. '() in place and y:' .. name .. '(x)', src, ...)
    end
    if src == nil then return f_(self) end
    return into(self, f(src))
  end
end

-- x:add(v) x:add(y) x:add(v, y) in place; z:add(x, v) z:add(x, y) z:add(x, v, y) into z. csub
-- is the same with subtraction (Torch7's sub is a view, below).
local function add_form(name, sign)
  local usage = 'x:' .. name .. '(v), x:' .. name .. '(y), x:' .. name .. '(v, y) in place and z:'
    .. name .. '(x, v), z:' .. name .. '(x, y), z:' .. name .. '(x, v, y)'
  return function(self, ...)
    local k, a, b, c = kinds(...), ...
    if k == 'n' or k == 'T' then return fused.add_(self, a, { alpha = sign }) end
    if k == 'n,T' then return fused.add_(self, b, { alpha = sign * a }) end
    if k == 'T,n' or k == 'T,T' then return into(self, fused.add(a, b, { alpha = sign })) end
    if k == 'T,n,T' then return into(self, fused.add(a, c, { alpha = sign * b })) end
    bad_args(name, usage, ...)
  end
end
forms.add, forms.csub = add_form('add', 1), add_form('csub', -1)
into_kinds.add = { ['T,n'] = true, ['T,T'] = true, ['T,n,T'] = true }
into_kinds.csub = into_kinds.add

-- x:mul(v) in place, y:mul(x, v) into y (a number: cmul multiplies by a tensor); div alike.
for _, name in ipairs({ 'mul', 'div' }) do
  local f, f_ = fused[name], fused[name .. '_']
  local usage = 'x:' .. name .. '(v) in place and y:' .. name .. '(x, v), v a number (c' .. name
    .. ' for a tensor)'
  into_kinds[name] = { ['T,n'] = true }
  forms[name] = function(self, ...)
    local k, a, b = kinds(...), ...
    if k == 'n' then return f_(self, a) end
    if k == 'T,n' then return into(self, f(a, b)) end
    bad_args(name, usage, ...)
  end
end

-- x:cmul(y) in place, z:cmul(x, y) into z; cdiv alike.
for name, op in pairs({ cmul = 'mul', cdiv = 'div' }) do
  local f, f_ = fused[op], fused[op .. '_']
  local usage = 'x:' .. name .. '(y) in place and z:' .. name .. '(x, y)'
  into_kinds[name] = { ['T,T'] = true }
  forms[name] = function(self, ...)
    local k, a, b = kinds(...), ...
    if k == 'T' then return f_(self, a) end
    if k == 'T,T' then return into(self, f(a, b)) end
    bad_args(name, usage, ...)
  end
end

-- x:pow(v) in place; y:pow(x, v) y = x ^ v; y:pow(v, x) y = v ^ x.
forms.pow = function(self, ...)
  local k, a, b = kinds(...), ...
  if k == 'n' then return fused.pow_(self, a) end
  if k == 'T,n' then return into(self, fused.pow(a, b)) end
  if k == 'n,T' then return into(self, fused.pow(fused.full(b:shape(), a, { dtype = b.dtype, device = b.device }), b)) end
  bad_args('pow', 'x:pow(v) in place, y:pow(x, v) and y:pow(v, x)', ...)
end

into_kinds.pow = { ['T,n'] = true, ['n,T'] = true }

-- x:clamp(lo, hi) in place, y:clamp(x, lo, hi) into y.
forms.clamp = function(self, ...)
  local k, a, b, c = kinds(...), ...
  if k == 'n,n' then return fused.clamp_(self, a, b) end
  if k == 'T,n,n' then return into(self, fused.clamp(a, b, c)) end
  bad_args('clamp', 'x:clamp(lo, hi) in place and y:clamp(x, lo, hi)', ...)
end
into_kinds.clamp = { ['T,n,n'] = true }

-- x:addcmul([v,] a, b): x += v * a * b; y:addcmul(x, [v,] a, b): y = x + v * a * b. addcdiv alike.
for name, op in pairs({ addcmul = 'mul', addcdiv = 'div' }) do
  local usage = 'x:' .. name .. '([v,] t1, t2) in place and y:' .. name .. '(x, [v,] t1, t2)'
  into_kinds[name] = { ['T,T,T'] = true, ['T,n,T,T'] = true }
  forms[name] = function(self, ...)
    local k, a, b, c, d = kinds(...), ...
    local src, v, t1, t2
    if k == 'T,T' then src, v, t1, t2 = self, 1, a, b
    elseif k == 'n,T,T' then src, v, t1, t2 = self, a, b, c
    elseif k == 'T,T,T' then src, v, t1, t2 = a, 1, b, c
    elseif k == 'T,n,T,T' then src, v, t1, t2 = a, b, c, d
    else bad_args(name, usage, ...) end
    local term = fused[op](t1, t2)
    if src == self then return fused.add_(self, term, { alpha = v }) end
    return into(self, fused.add(src, term, { alpha = v }))
  end
end

-- x:addmm([beta,] [src,] [alpha,] m1, m2): x = beta * src + alpha * (m1 m2), src x when not
-- given (TensorMath.lua's method forms); addmv (m v) and addr (the outer product v1 v2') alike.
local products = { addmm = fused.matmul, addmv = fused.mv, addr = fused.outer }
for name, product in pairs(products) do
  local usage = 'x:' .. name .. '([beta,] [src,] [alpha,] a, b)'
  into_kinds[name] = { ['T,T,T'] = true, ['T,n,T,T'] = true, ['n,T,n,T,T'] = true }
  forms[name] = function(self, ...)
    local n = select('#', ...)
    local a, b = select(n - 1, ...)
    if n < 2 or not is_tensor(a) or not is_tensor(b) then bad_args(name, usage, ...) end
    local k = kinds(...):sub(1, -4):gsub(',$', '')
    local beta, src, alpha = 1, self, 1
    local x, y, z = ...
    if k == 'n' then alpha = x
    elseif k == 'T' then src = x
    elseif k == 'T,n' then src, alpha = x, y
    elseif k == 'n,n' then beta, alpha = x, y
    elseif k == 'n,T,n' then beta, src, alpha = x, y, z
    elseif k ~= '' then bad_args(name, usage, ...) end
    local r = fused.mul(product(a, b), alpha)
    r = fused.add(r, src, { alpha = beta })
    return into(self, r)
  end
end

-- y:mm(a, b) y = a b, y:mv(m, v), y:ger(u, v) (the outer product) into y; a:mm(b) alone is a
-- new tensor (Torch7 refused it).
for name, product in pairs({ mm = fused.matmul, mv = fused.mv, ger = fused.outer }) do
  into_kinds[name] = { ['T,T'] = true }
  forms[name] = function(self, ...)
    local k, a, b = kinds(...), ...
    if k == 'T' then return product(self, a) end
    if k == 'T,T' then return into(self, product(a, b)) end
    bad_args(name, 'y:' .. name .. '(a, b)', ...)
  end
end

-- y:sum(x, d) into y; x:sum(), x:sum(d) as fused's (a number, or kept dim). prod, mean,
-- cumsum, cumprod alike.
for _, name in ipairs({ 'sum', 'prod', 'mean', 'cumsum', 'cumprod' }) do
  local f = fused[name]
  forms[name] = function(self, x, ...)
    if is_tensor(x) then return into(self, f(x, ...)) end
    return f(self, x, ...)
  end
end

-- x:max(d) as fused's (values and indices, the dim kept); vals:max(idx, x, d) into vals, idx.
for _, name in ipairs({ 'max', 'min' }) do
  local f = fused[name]
  forms[name] = function(self, idx, x, ...)
    if is_tensor(idx) then
      local v, i = f(x, ...)
      into(idx, i)
      return into(self, v), idx
    end
    return f(self, idx, x, ...)
  end
end

-- x:topk(k[, dim][, dir][, sort]): the k smallest unless dir is true (Torch7's default), in
-- sorted order either way.
forms.topk = function(self, k, dim, dir, sorted, ...)
  if select('#', ...) > 0 or type(k) ~= 'number' or (dim ~= nil and type(dim) ~= 'number')
      or (dir ~= nil and type(dir) ~= 'boolean') or (sorted ~= nil and type(sorted) ~= 'boolean') then
    bad_args('topk', 'x:topk(k[, dim][, dir][, sort]), dir true for the largest', k, dim, dir, sorted, ...)
  end
  return fused.topk(self, k, dim, dir == true, true)
end

-- x:sub(a1, b1[, a2, b2, ...]): the view of indices a..b of each leading dim (negative from the end).
forms.sub = function(self, ...)
  local n = select('#', ...)
  if n == 0 or n % 2 == 1 or n / 2 > self.ndim then
    bad_args('sub', string.format('x:sub(first1, last1[, first2, last2, ...]), at most %d pairs', self.ndim), ...)
  end
  local v = self
  for d = 1, n / 2 do
    local a, b = select(2 * d - 1, ...)
    if type(a) ~= 'number' or type(b) ~= 'number' then
      bad_args('sub', 'x:sub(first1, last1[, first2, last2, ...]) of numbers', ...)
    end
    local size = self:size(d)
    if a < 0 then a = a + size + 1 end
    if b < 0 then b = b + size + 1 end
    if a < 1 or b > size or a > b then
      blame(string.format("sub: the range %d..%d of dim %d is outside 1..%d", a, b, d, size))
    end
    v = v:narrow(d, a, b - a + 1)
  end
  return v
end

-- Torch7's names for fused's index and mask ops; a mask may be a ByteTensor (0 and 1, here
-- int64) as Torch7's were.
local function as_mask(m)
  if is_tensor(m) and m.dtype ~= 'bool' then return m:ne(0) end
  return m
end
forms.index = function(self, dim, idx) return fused.index_select(self, dim, idx) end
forms.indexAdd = function(self, dim, idx, src) return self:index_add_(dim, idx, src) end
forms.maskedSelect = function(self, m) return fused.masked_select(self, as_mask(m)) end
forms.maskedFill = function(self, m, v) return self:masked_fill_(as_mask(m), v) end
forms.maskedCopy = function(self, m, src) return self:masked_scatter_(as_mask(m), src) end
forms.cmax = function(self, a, b)
  if b == nil then return fused.maximum_(self, a) end
  return into(self, fused.maximum(a, b))
end
forms.cmin = function(self, a, b)
  if b == nil then return fused.minimum_(self, a) end
  return into(self, fused.minimum(a, b))
end
into_kinds.cmax, into_kinds.cmin = { ['T,T'] = true }, { ['T,T'] = true }

-- print(x)'s last line, as Torch7's: [torch.DoubleTensor of size 2x3] (fused/print.lua).
forms.__footer = function(self, size) return '[' .. types.name_of(self) .. ' of size ' .. size .. ']' end

-- Type strings: 'torch.FloatTensor' (types.lua); x:type(name) converts.
forms.type = function(self, name)
  if name == nil then return types.name_of(self) end
  local dtype, device = types.parse(name, 'type')
  return self:to(dtype, device)
end
forms.typeAs = function(self, other) return forms.type(self, types.name_of(other)) end
forms.isContiguous = function(self) return self:is_contiguous() end
forms.nElement = function(self) return self:numel() end
forms.expandAs = function(self, other) return self:expand(other:shape()) end
forms.viewAs = function(self, other) return self:view(other:shape()) end
forms.isSameSizeAs = function(self, other) return self:size() == other:size() end

-- x:resize(sizes): x holds those sizes, keeping its elements where their count is the same
-- (Torch7 kept the storage); resizeAs(y) to y's sizes.
local function sizes_of(fn, ...)
  local first = ...
  if type(first) == 'table' then return first end
  local s = { ... }
  for i = 1, select('#', ...) do
    if type(s[i]) ~= 'number' then bad_args(fn, 'x:' .. fn .. '(sizes) (numbers or a size)', ...) end
  end
  return s
end
forms.resize = function(self, ...)
  local sizes = sizes_of('resize', ...)
  local n = 1
  for _, s in ipairs(sizes) do n = n * s end
  if n == self:numel() and self:is_contiguous() then
    return rebind(self, self:view(sizes))
  end
  return rebind(self, fused.zeros(sizes, { dtype = self.dtype, device = self.device }))
end
forms.resizeAs = function(self, other) return forms.resize(self, other:shape()) end

-- x:new(...): a tensor of x's type, as the class's constructor makes it; x.new(...) (no x:
-- Torch7's class constructor got from an instance) makes the default type.
forms.new = function(self, ...)
  if is_tensor(self) then return types.constructor_of(self)(...) end
  if self == nil then return types.default_constructor(...) end
  return types.default_constructor(self, ...)
end

-- Storages. fused has no storage objects: x:storage() is a 1-D view of the elements x owns
-- (x contiguous), or the storage x was set onto; s:size() of one is its length, a number.
-- x:set(s, offset, sizes[, strides]) makes x view s from offset (1-based), and
-- x:storageOffset() gives that offset (1 for a tensor on its own elements). Enough for the
-- Torch7 programs that flatten parameters (char-rnn's model_utils).

forms.storage = function(self)
  local at = placed[self]
  if at then return at[1] end
  if not self:is_contiguous() then
    blame("storage: fused has no storages; x:storage() is a contiguous x's elements as a 1-D view, "
          .. "and x is not contiguous (x:contiguous():storage())")
  end
  local s = self:view(self:numel())
  storages[s] = true
  return s
end

forms.storageOffset = function(self)
  local at = placed[self]
  return at and at[2] or 1
end

local native_size = Tensor.size
forms.size = function(self, ...)
  if storages[self] and select('#', ...) == 0 then return self:numel() end
  return native_size(self, ...)
end

-- #x: its sizes (a fused.Size), as Torch7's; a storage's length.
forms.__len = function(self)
  if storages[self] then return self:numel() end
  return native_size(self)
end

local function int64s(list)
  local a = ffi.new('int64_t[?]', math.max(#list, 1))
  for i, v in ipairs(list) do a[i - 1] = v end
  return a
end

local function as_list(what, x)
  if type(x) == 'number' then return { x } end
  if type(x) == 'table' then
    local ok = true
    for i = 1, #x do ok = ok and type(x[i]) == 'number' end
    if ok then return x end
  end
  blame(string.format("set: argument '%s' expected sizes (numbers: a table or x:size()), got %s", what,
                      type(x)))
end

-- A view of src at offset (in elements from src's first) with sizes and strides, or set's error
-- (naming the offset as the user counts it, from 1).
local function view_of(src, offset, sizes, strides)
  local ok, view = pcall(tensor.make_view, src, #sizes, int64s(sizes), int64s(strides), offset)
  if not ok then
    blame(string.format("set: the view at offset %d (sizes [%s], strides [%s]) reaches outside the storage's %d elements",
                        offset + 1, table.concat(sizes, ', '), table.concat(strides, ', '), src:numel()))
  end
  return view
end

-- x:set(y): x views y's elements (y's sizes and strides); x:set(): empty;
-- x:set(s, offset[, sizes[, strides]]): x views s (a storage: a 1-D tensor) from offset
-- (1-based) with sizes (the rest of s without) and strides (contiguous without).
forms.set = function(self, src, offset, sizes, strides, ...)
  local usage = 'x:set(y), x:set() and x:set(storage, offset[, sizes[, strides]])'
  if select('#', ...) > 0 or (src ~= nil and not is_tensor(src)) then bad_args('set', usage, src, offset, sizes, strides, ...) end
  if src == nil then
    return rebind(self, fused.zeros({ 0 }, { dtype = self.dtype, device = self.device }))
  end
  if offset == nil then
    rebind(self, view_of(src, 0, src:shape(), src:stride()))
    placed[self] = placed[src]
    return self
  end
  if src.ndim ~= 1 then blame("set: argument 'storage' expected a storage (x:storage(), 1-D), got " .. src.ndim .. ' dims') end
  if type(offset) ~= 'number' or offset < 1 or offset ~= math.floor(offset) then
    blame("set: argument 'offset' expected a whole number >= 1, got " .. tostring(offset))
  end
  sizes = sizes == nil and { src:numel() - offset + 1 } or as_list('sizes', sizes)
  if strides == nil then
    strides = {}
    local step = 1
    for d = #sizes, 1, -1 do strides[d] = step; step = step * sizes[d] end
  else
    strides = as_list('strides', strides)
  end
  rebind(self, view_of(src, offset - 1, sizes, strides))
  placed[self] = { src, offset }
  return self
end

-- x:copy(y): y's elements in row-major order where the shapes differ but the counts do not,
-- converted where the device and the type both differ (Torch7's); else fused's copy (y
-- broadcast to x's shape).
local native_copy = Tensor.copy_
forms.copy = function(self, src, ...)
  if is_tensor(src) and select('#', ...) == 0 then
    if src.device ~= self.device and src.dtype ~= self.dtype then src = src:to(self.dtype) end
    if src:numel() == self:numel() and src.ndim ~= 0 and not (src:size() == self:size()) then
      src = src:contiguous():view(self:shape())
    end
  end
  local ok, out = pcall(native_copy, self, src, ...)
  if not ok then blame((tostring(out):gsub('^.-copy_: ', 'copy: '))) end
  return out
end

-- x:long() and the integer classes' conversions truncate toward zero, as Torch7's (fused's
-- long() refuses a fraction): byte, char, short and int give int64 (types.lua).
for _, name in ipairs({ 'long', 'byte', 'char', 'short', 'int' }) do
  forms[name] = function(self)
    if self.dtype == 'int64' then return self end
    if self.dtype == 'bool' then return self:to('int64') end
    return self:to('float64'):trunc_():to('int64')
  end
end

-- x:random([a,] b): whole numbers drawn uniformly from a..b (1..b), in place.
forms.random = function(self, a, b)
  if b == nil then a, b = 1, a end
  if type(a) ~= 'number' or type(b) ~= 'number' or a > b then
    bad_args('random', 'x:random(b) (1..b) and x:random(a, b), a <= b', a, b)
  end
  local u = fused.rand(self:shape(), { dtype = 'float64', device = self.device })
  return self:copy_(u:mul_(b - a + 1):floor_():add_(a))
end

-- x:bernoulli([p]): 1 with probability p (0.5), else 0, in place.
forms.bernoulli = function(self, p)
  p = p == nil and 0.5 or p
  if type(p) ~= 'number' or p < 0 or p > 1 then bad_args('bernoulli', 'x:bernoulli([p]), p in [0, 1]', p) end
  local u = fused.rand(self:shape(), { dtype = 'float64', device = self.device })
  return self:copy_(u:lt(p))
end

-- x:dist(y[, p]): the p-norm (2) of x - y, a number; x:dot(y): the sum of the products.
forms.dist = function(self, other, p) return fused.norm(fused.sub(self, other), p or 2) end
forms.dot = function(self, other) return fused.mul(self, other):sum() end

-- x:indexCopy(dim, idx, src) and x:indexFill(dim, idx, v): the slices idx names along dim
-- (1-based) set from src or to v, in place.
forms.indexCopy = function(self, dim, idx, src)
  if type(idx) == 'table' then idx = fused.tensor(idx, { dtype = 'int64' }) end
  for i, at in ipairs(idx:totable()) do self:select(dim, at):copy_(src:select(dim, i)) end
  return self
end
forms.indexFill = function(self, dim, idx, v)
  if type(idx) == 'table' then idx = fused.tensor(idx, { dtype = 'int64' }) end
  for _, at in ipairs(idx:totable()) do self:select(dim, at):fill_(v) end
  return self
end

-- x:all(), x:any() of a mask (nonzero is true), booleans.
forms.all = function(self) return self:ne(0):long():sum() == self:numel() end
forms.any = function(self) return self:ne(0):long():sum() > 0 end

-- x:cuda(): a torch.CudaTensor, float32 on the CUDA device, whatever x's type (cutorch's);
-- cudaDouble(), cudaLong() keep those types.
forms.cuda = function(self) return self:to('float32', 'cuda') end
forms.cudaDouble = function(self) return self:to('float64', 'cuda') end
forms.cudaLong = function(self) return self:to('int64', 'cuda') end

-- x:stride(): the strides as a fused.Size (Torch7's LongStorage, which prints); x:stride(d) a
-- number, as fused's.
local native_stride = Tensor.stride
forms.stride = function(self, ...)
  if select('#', ...) == 0 then return fused.Size(native_stride(self)) end
  return native_stride(self, ...)
end

-- x:apply(f): each element replaced by f(element) where f returns a value; x:map(y, f) by
-- f(x's, y's). On the host, as Torch7's.
forms.apply = function(self, f)
  local flat = self:contiguous():view(self:numel()):to('cpu')
  local values = flat:totable()
  for i = 1, #values do
    local v = f(values[i])
    if v ~= nil then values[i] = v end
  end
  return self:copy_(fused.tensor(values, { dtype = self.dtype }):view(self:shape()))
end
forms.map = function(self, other, f)
  local a, b = self:contiguous():view(self:numel()):totable(), other:contiguous():view(other:numel()):totable()
  for i = 1, #a do
    local v = f(a[i], b[i])
    if v ~= nil then a[i] = v end
  end
  return self:copy_(fused.tensor(a, { dtype = self.dtype }):view(self:shape()))
end

-- a * b in a program (the library's own * stays elementwise: tensor.operator): Torch7's
-- products of two tensors, 1-D by 1-D a number (dot), 2-D by 1-D mv, 2-D by 2-D mm; with a
-- number, the elementwise product as in both.
local function product(a, b)
  if not (is_tensor(a) and is_tensor(b)) then return fused.mul(a, b) end
  if a.ndim == 1 and b.ndim == 1 then return fused.mul(a, b):sum() end
  if a.ndim == 2 and b.ndim == 1 then return fused.mv(a, b) end
  if a.ndim == 2 and b.ndim == 2 then return fused.matmul(a, b) end
  blame(string.format("*: Torch7's product of two tensors takes 1-D or 2-D ones (dot, mv, mm), got %d-D and %d-D "
                      .. "(fused.mul(a, b) for the elementwise product)", a.ndim, b.ndim))
end

-- Each form refuses an argument it does not take (check.no_extra) and, but x.new(...), being
-- called on something other than a tensor, as fused's methods do; a * b is product's.
for name, f in pairs(forms) do
  local checked = argcheck.no_extra(name, f)
  forms[name] = name == 'new' and checked or function(self, ...)
    if not is_tensor(self) then
      blame(string.format("%s: expected a tensor to call it on, got %s (call it as x:%s(...))", name,
                          argcheck.type_name(self), name))
    end
    return checked(self, ...)
  end
end

forms.__mul = product

-- The forms that take fused's calls of the same name as fused does and add Torch7's (x:sum(d)
-- is both; y:sum(x, d) Torch7's): the library's own code may call these. Every other form that
-- fused also has means something else there (spec/th_library_forms_spec.lua).
M.extends = { sum = true, prod = true, mean = true, cumsum = true, cumprod = true, max = true,
              min = true, mv = true, nElement = true, size = true, copy = true, long = true,
              stride = true }

-- x:size() is a fused.Size; Torch7's was a LongStorage, with s:size() its length and
-- s:totable(). The Size class's methods while installed.
local Size = getmetatable(fused.Size({}))
M.size_forms = {
  size = function(s) return #s end,
  totable = function(s) return { unpack(s) } end,
}

-- The forms in place of fused's while installed; fused's kept to put back.
local saved

local function swap(into, entries, keep)
  for name, f in pairs(entries) do
    keep[name] = rawget(into, name) or false
    into[name] = f
  end
end

function M.install()
  if saved then return end
  saved = { tensor = {}, size = {} }
  swap(Tensor, forms, saved.tensor)
  swap(Size, M.size_forms, saved.size)
end

function M.uninstall()
  if not saved then return end
  for name, f in pairs(saved.tensor) do Tensor[name] = f or nil end
  for name, f in pairs(saved.size) do Size[name] = f or nil end
  saved = nil
end

function M.installed() return saved ~= nil end

return M
