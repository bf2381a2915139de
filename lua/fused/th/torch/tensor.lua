-- Torch7's meanings of the Tensor methods whose meaning differs from fused's, in one table
-- (docs/torch7.md lists them): install() puts them in the shared method table when `fused th`
-- starts, uninstall() puts fused's back. Torch7 (TensorMath.lua) computes in place when a
-- method gets its operands alone (x:exp(), x:add(y)) and into self, result first, when it also
-- gets the source (y:exp(x), z:add(x, y)). Each form here computes with fused's functions
-- (fused.add, fused.exp_, ...), never with the methods it replaces.
local ffi = require 'ffi'
local fused = require 'fused'
local tensor = require 'fused.tensor'
local types = require 'fused.th.torch.types'

local M = {}
local Tensor = tensor.Tensor
local tensor_t = ffi.typeof('fused_tensor')

local function is_tensor(x) return ffi.istype(tensor_t, x) end

local function kinds(...)
  local n, k = select('#', ...), {}
  for i = 1, n do
    local a = select(i, ...)
    k[i] = is_tensor(a) and 'T' or type(a) == 'number' and 'n' or type(a)
  end
  return table.concat(k, ',')
end

local function bad_args(name, usage, ...)
  error(string.format("%s: Torch7's forms are %s; got (%s)", name, usage, kinds(...)), 3)
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
  return tensor.replace(self, value)
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
      error(string.format("sub: the range %d..%d of dim %d is outside 1..%d", a, b, d, size), 2)
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
    return tensor.replace(self, self:view(sizes))
  end
  return tensor.replace(self, fused.zeros(sizes, { dtype = self.dtype, device = self.device }))
end
forms.resizeAs = function(self, other) return forms.resize(self, other:shape()) end

-- x:set(y): x views y's elements (the same storage, sizes, strides); x:set() empties x.
forms.set = function(self, other, ...)
  if select('#', ...) > 0 then error("set: only x:set(y) and x:set() are supported (fused has no storages)", 2) end
  if other == nil then return tensor.replace(self, fused.zeros({ 0 }, { dtype = self.dtype, device = self.device })) end
  if not is_tensor(other) then bad_args('set', 'x:set(y) and x:set()', other) end
  return tensor.replace(self, other:narrow(1, 1, other:size(1)))
end

-- x:new(...): a tensor of x's type, as the class's constructor makes it. x.new(...) (Torch7's
-- field form, optim's rosenbrock) cannot see x: the default type's constructor.
forms.new = function(self, ...)
  if not types.is_tensor(self) then return types.default_constructor(self, ...) end
  return types.constructor_of(self)(...)
end

-- x:storage(): a tensor that owns its elements (contiguous, from its first element) is its own
-- storage here, as a 1-D view; fused has no storage objects beyond that.
forms.storage = function(self)
  if not self:is_contiguous() then
    error("storage: fused has no storages; for a contiguous tensor x:storage() is a 1-D view of its elements, "
          .. "and this one is not contiguous (x:contiguous():storage())", 2)
  end
  return self:view(self:numel())
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

-- The forms that take fused's calls of the same name as fused does and add Torch7's (x:sum(d)
-- is both; y:sum(x, d) Torch7's): the library's own code may call these. Every other form that
-- fused also has means something else there (spec/th_library_forms_spec.lua).
M.extends = { sum = true, prod = true, mean = true, cumsum = true, cumprod = true, max = true,
              min = true, mv = true, nElement = true }

-- The forms in place of fused's while installed; fused's kept to put back.
local saved

function M.install()
  if saved then return end
  saved = {}
  for name, f in pairs(forms) do
    saved[name] = rawget(Tensor, name) or false
    Tensor[name] = f
  end
end

function M.uninstall()
  if not saved then return end
  for name, f in pairs(saved) do Tensor[name] = f or nil end
  saved = nil
end

function M.installed() return saved ~= nil end

return M
