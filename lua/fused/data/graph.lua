-- Generated graphs for node classification: a stochastic block model whose nodes carry noisy
-- features of their community, drawn from fused's generator (fused.manual_seed makes it
-- reproducible), and a random split of the nodes.
--
--   local graph = require 'fused.data.graph'
--   local g = graph.stochastic_block_model({ nodes = 10000, communities = 4, degree = 10,
--                                            homophily = 0.8, features = 32, signal = 0.5 })
--   g.adjacency   -- sparse N x N, symmetric, no self-loops; a pair drawn twice weighs 2
--   g.labels      -- int64 N, communities 1..K;  g.features  -- float32 N x F
--   local train, test = graph.split(10000, { train = 500, test = 5000 })   -- int64 node indices
--
-- Edges: nodes * degree / 2 draws of a node u and a partner, from u's community with
-- probability homophily, else from all nodes; both directions are stored. Features: each
-- community has a mean drawn from N(0, signal^2 I); a node's features are its community's mean
-- plus N(0, I) noise, so a small signal leaves the features alone a poor guide.
local ffi = require 'ffi'
local functional = require 'fused.functional'
local options = require 'fused.options'
local sparse = require 'fused.sparse'
local factory = require 'fused.factory'
local stream = require 'fused.data.stream'

local M = {}
local I64 = { dtype = 'int64' }

local function positive(opts, k, default, fn)
  local v = opts[k] == nil and default or opts[k]
  if type(v) ~= 'number' or v <= 0 or v ~= v then
    error(string.format("%s: option '%s' expected a positive number, got %s", fn, k, tostring(v)), 3)
  end
  return v
end

function M.stochastic_block_model(opts)
  local fn = 'graph.stochastic_block_model'
  opts = options.check(opts, fn, { 'communities', 'degree', 'features', 'homophily', 'nodes', 'signal' })
  local n = math.floor(positive(opts, 'nodes', 10000, fn))
  local k = math.floor(positive(opts, 'communities', 4, fn))
  local degree, homophily = positive(opts, 'degree', 10, fn), positive(opts, 'homophily', 0.8, fn)
  local f, signal = math.floor(positive(opts, 'features', 32, fn)), positive(opts, 'signal', 0.5, fn)

  local labels = factory.empty({ n }, I64)
  local label = ffi.cast('int64_t*', labels.data)
  local members = {}
  for c = 1, k do members[c] = {} end
  -- the draws in arrays that own their memory (data/stream.lua): a pointer into a tensor that
  -- nothing holds reads freed memory once the collector runs
  local u = stream.values(factory.rand({ n }, { dtype = 'float64' }))
  for i = 0, n - 1 do
    local c = math.floor(u[i] * k) + 1
    label[i] = c
    members[c][#members[c] + 1] = i + 1
  end

  local draws = math.max(1, math.floor(n * degree / 2))
  local x = stream.values(factory.rand({ draws, 3 }, { dtype = 'float64' }))
  local rows, cols = factory.empty({ 2 * draws }, I64), factory.empty({ 2 * draws }, I64)
  local row, col, m = ffi.cast('int64_t*', rows.data), ffi.cast('int64_t*', cols.data), 0
  for e = 0, draws - 1 do
    local a = math.floor(x[3 * e] * n) + 1
    local b
    if x[3 * e + 1] < homophily then
      local same = members[tonumber(label[a - 1])]
      b = same[math.floor(x[3 * e + 2] * #same) + 1]
    else
      b = math.floor(x[3 * e + 2] * n) + 1
    end
    if a ~= b then -- no self-loops: the normalisation adds them
      row[m], col[m], row[m + 1], col[m + 1] = a, b, b, a
      m = m + 2
    end
  end
  rows, cols = rows:narrow(1, 1, m), cols:narrow(1, 1, m)
  local adjacency = sparse.from_coo(rows, cols, factory.ones({ m }), { n, n })

  local means = factory.randn({ k, f }):mul_(signal)
  local features = factory.randn({ n, f }):add_(functional.embedding(labels, means))
  return { adjacency = adjacency, labels = labels, features = features, communities = k }
end

-- A random split of nodes 1..n: `train` and `test` node indices (int64), disjoint.
function M.split(n, opts)
  local fn = 'graph.split'
  opts = options.check(opts, fn, { 'test', 'train' })
  local n_train, n_test = math.floor(positive(opts, 'train', 1, fn)), math.floor(positive(opts, 'test', 1, fn))
  if n_train + n_test > n then
    error(string.format("%s: options 'train' and 'test' expected at most %d nodes in all, got %d", fn, n, n_train + n_test), 2)
  end
  local keys = stream.values(factory.rand({ n }, { dtype = 'float64' }))
  local order = {}
  for i = 1, n do order[i] = i end
  table.sort(order, function(a, b) return keys[a - 1] < keys[b - 1] end)
  local train, test = factory.empty({ n_train }, I64), factory.empty({ n_test }, I64)
  local p, q = ffi.cast('int64_t*', train.data), ffi.cast('int64_t*', test.data)
  for i = 1, n_train do p[i - 1] = order[i] end
  for i = 1, n_test do q[i - 1] = order[n_train + i] end
  return train, test
end

return M
