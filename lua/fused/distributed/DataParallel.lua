-- fused.distributed.DataParallel(model, {bucket_bytes =}): every process trains the same model
-- on its share of the batch; the gradients are averaged over the processes during backward, as
-- PyTorch's DistributedDataParallel does.
--
--   local dp = fused.distributed.DataParallel(model)   -- broadcasts rank 0's parameters
--   dp:forward(...); dp:backward(...)                  -- backward ends in synchronize()
--   -- or the model's own calls (model:loss(xs, ys, true)), then dp:synchronize()
--   optimizer:step()
--
-- The gradients are packed into flat buckets of about bucket_bytes (default 25 MB; a parameter
-- larger than that has a bucket of its own), filled in reverse parameter order, since backward
-- finishes the last modules first. After the backward of any module of the model returns, its
-- parameters' gradients are complete: the buckets whose gradients all are start their
-- allreduce then (MPI_Iallreduce, or NCCL on CUDA), in bucket order on every process, so the
-- communication runs while the rest of backward does. synchronize() starts what is left, waits
-- (with the FUSED_DIST_TIMEOUT deadline) and writes the means back into the gradients.
--
-- Bind it after the model reaches its device and dtype (:to() makes new gradient tensors).
-- A module's backward may run once between two synchronize() calls (as PyTorch's DDP marks a
-- gradient ready once); a second run is an error. On one process it does nothing.
local ffi = require 'ffi'
local backend = require 'fused.distributed.backend'
local distributed = require 'fused.distributed'
local dt = require 'fused.dtype'
local options = require 'fused.options'
local argcheck = require 'fused.check'
local factory = require 'fused.factory'

local DataParallel = {}
DataParallel.__index = DataParallel

local DEFAULT_BUCKET_BYTES = 25 * 2 ^ 20
local FN = 'distributed.DataParallel'

-- Buckets over params (in reverse order), one dtype and device each, with views of their flat
-- tensor shaped as each gradient.
local function make_buckets(names, params, grads, bucket_bytes)
  local buckets, open, bucket_of = {}, {}, {}
  for i = #params, 1, -1 do
    local p = params[i]
    local key = p.dtype .. ' ' .. p.device
    local bytes = p:numel() * dt.sizes[p.scalar_type]
    local b = open[key]
    if not b or (b.bytes + bytes > bucket_bytes and b.bytes > 0) then
      b = { bytes = 0, numel = 0, indices = {}, names = {}, like = p }
      buckets[#buckets + 1], open[key] = b, b
    end
    b.indices[#b.indices + 1], b.names[#b.names + 1] = i, names[i]
    b.bytes, b.numel = b.bytes + bytes, b.numel + p:numel()
    bucket_of[i] = b
  end
  for _, b in ipairs(buckets) do
    b.flat = factory.empty({ b.numel }, { dtype = b.like.dtype, device = b.like.device })
    b.views, b.like = {}, nil
    local offset = 1
    for j, i in ipairs(b.indices) do
      b.views[j] = b.flat:narrow(1, offset, grads[i]:numel()):view(grads[i]:shape())
      offset = offset + grads[i]:numel()
    end
  end
  return buckets, bucket_of
end

-- What every rank must agree on, one entry a line, 'subject\tstate': each parameter's name,
-- shape, dtype and device, then each bucket's size in bytes.
local function describe(names, params, buckets)
  local lines = {}
  for i, p in ipairs(params) do
    local shape = table.concat(p:shape(), 'x')
    lines[i] = string.format("parameter '%s'\tis %s %s on %s", names[i],
                             shape == '' and 'a scalar' or shape, p.dtype, p.device)
  end
  lines[#lines + 1] = string.format('parameter count\tis %d', #params)
  for i, b in ipairs(buckets) do lines[#lines + 1] = string.format('bucket %d\tholds %d bytes', i, b.bytes) end
  lines[#lines + 1] = string.format('bucket count\tis %d', #buckets)
  return table.concat(lines, '\n')
end

-- Rank root's text on every rank (over MPI, as bytes in CPU tensors: its length, then itself).
local function broadcast_text(text, root)
  local length = factory.tensor({ #text }, { dtype = 'float64' })
  distributed.broadcast(length, root)
  local n = length:item()
  local bytes = factory.zeros({ math.max(1, math.ceil(n / 8)) }, { dtype = 'float64' })
  ffi.copy(bytes.data, text, math.min(#text, n))
  distributed.broadcast(bytes, root)
  return ffi.string(bytes.data, n)
end

-- The first line where two descriptions differ, split into subject and state (each side).
local function first_difference(a, b)
  local la, lb = {}, {}
  for line in (a .. '\n'):gmatch('([^\n]*)\n') do la[#la + 1] = line end
  for line in (b .. '\n'):gmatch('([^\n]*)\n') do lb[#lb + 1] = line end
  for i = 1, math.max(#la, #lb) do
    if la[i] ~= lb[i] then
      local sa, ta = (la[i] or 'nothing\tmore'):match('^(.-)\t(.*)$')
      local sb, tb = (lb[i] or 'nothing\tmore'):match('^(.-)\t(.*)$')
      return sa, ta, sb, tb
    end
  end
end

-- Every rank must hold the same model (a difference would make the collectives of different
-- sizes, which MPI and NCCL do not detect: heap corruption or a hang). Rank 0's description
-- reaches all; each says whether its own differs; the first rank that does sends its own, and
-- every rank raises the same error naming the first difference.
local function check_same_model(description, rank, size)
  local reference = broadcast_text(description, 0)
  local differs = factory.zeros({ size }, { dtype = 'float64' })
  local flags = ffi.cast('double *', differs.data)
  if description ~= reference then flags[rank] = 1 end
  distributed.allreduce(differs)
  for r = 1, size - 1 do
    if flags[r] ~= 0 then
      local theirs = broadcast_text(description, r)
      local s0, t0, sr, tr = first_difference(reference, theirs)
      local what = s0 == sr and string.format("rank %d's %s %s, rank 0's %s", r, sr, tr, t0)
        or string.format("rank %d's %s %s where rank 0's %s %s", r, sr, tr, s0, t0)
      error(string.format('%s: every rank must hold the same model: %s', FN, what), 3)
    end
  end
end

-- After module m's backward (m itself, not a clone sharing its parameters): its gradients are
-- complete; start every bucket, in order, that has all of its own.
function DataParallel:ready(m)
  if self.fired[m] then
    error(string.format("%s: the backward of %s ran twice before synchronize(): a module's "
                        .. 'gradients must be complete after its one backward per step', FN,
                        self.module_names[m]), 3)
  end
  self.fired[m] = true
  for _, i in ipairs(self.indices_of[m]) do
    if not self.is_ready[i] then
      self.is_ready[i] = true
      local b = self.bucket_of[i]
      b.waiting = b.waiting - 1
    end
  end
  while self.buckets[self.next] and self.buckets[self.next].waiting == 0 do self:start_next() end
  -- MPI moves a collective on only inside its calls: give the ones in flight a turn.
  for k = 1, self.next - 1 do backend.test(self.buckets[k].request) end
end

function DataParallel:start_next()
  local b = self.buckets[self.next]
  for j, i in ipairs(b.indices) do b.views[j]:copy_(self.grads[i]) end
  b.request = backend.start('allreduce', b.flat)
  self.next = self.next + 1
end

-- Every module of the tree gets its backward wrapped, so that its parameters are marked ready
-- when it returns. Its shared clones (nn.Recurrent's steps) copy the wrapper and pass through.
function DataParallel:hook(m, name)
  local index = {}
  for i, g in ipairs(self.grads) do index[g] = i end
  local function walk(module, path)
    local list, _, grads = {}, module:parameters()
    for _, g in ipairs(grads) do list[#list + 1] = index[g] end
    self.indices_of[module], self.module_names[module] = list, path
    local backward = module.backward
    local dp = self
    local function after(...)
      dp:ready(module)
      return ...
    end
    module.backward = function(this, ...)
      if not rawequal(this, module) then return backward(this, ...) end
      return after(backward(this, ...))
    end
    local children, names = module:children()
    for i, child in ipairs(children) do walk(child, "'" .. names[i] .. "'") end
  end
  walk(m, name)
end

function DataParallel:reset()
  self.fired, self.is_ready, self.next = {}, {}, 1
  for _, b in ipairs(self.buckets) do b.waiting, b.request = #b.indices, nil end
end

-- Starts the buckets still waiting (modules whose backward did not run), waits for all, and
-- leaves in each gradient its mean over the processes.
function DataParallel:synchronize()
  if self.size == 1 then return end
  while self.buckets[self.next] do self:start_next() end
  for _, b in ipairs(self.buckets) do
    backend.wait(b.request)
    b.flat:div_(self.size)
    for j, i in ipairs(b.indices) do self.grads[i]:copy_(b.views[j]) end
  end
  self:reset()
end

function DataParallel:forward(...) return self.module:forward(...) end

function DataParallel:backward(...)
  local function synchronized(...)
    self:synchronize()
    return ...
  end
  return synchronized(self.module:backward(...))
end

return function(model, opts)
  opts = options.check(opts, FN, { 'bucket_bytes' })
  if type(model) ~= 'table' or type(model.named_parameters) ~= 'function' then
    error(string.format("%s: argument 'model' expected a fused.nn module, got %s", FN,
                        argcheck.type_name(model)), 2)
  end
  local bucket_bytes = opts.bucket_bytes or DEFAULT_BUCKET_BYTES
  if type(bucket_bytes) ~= 'number' or bucket_bytes < 1 then
    error(string.format("%s: option 'bucket_bytes' expected a number >= 1, got %s", FN,
                        tostring(bucket_bytes)), 2)
  end
  local _, size = distributed.init()
  local names, params, grads = {}, {}, {}
  for name, p, g in model:named_parameters() do
    names[#names + 1], params[#params + 1], grads[#grads + 1] = name, p, g
  end
  local self = setmetatable({ module = model, size = size, grads = grads, indices_of = {},
                              module_names = {} }, DataParallel)
  self.buckets, self.bucket_of = make_buckets(names, params, grads, bucket_bytes)
  if size > 1 then
    check_same_model(describe(names, params, self.buckets), distributed.rank(), size)
    for _, p in ipairs(params) do distributed.broadcast(p, 0) end
    self:hook(model, 'the model')
  end
  self:reset()
  return self
end
