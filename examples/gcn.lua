-- Node classification with a two-layer graph convolutional network (Kipf and Welling 2017) on a
-- generated graph: a stochastic block model whose node features are noisy hints of the
-- community. Trained on a few labelled nodes, scored on held-out ones, against the majority
-- class and against the same network without the graph (a two-layer perceptron on the features).
-- Kipf and Welling also drop out features (nn.Dropout); neither model here does, so that the two
-- differ by the graph alone.
--
--   luajit examples/gcn.lua [nodes] [seed] [threads]   -- defaults 10000 nodes, seed 1, 1 CPU thread
-- (0: all cores; one is fastest at these sizes on a shared machine)
dofile(debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. 'checkout.lua')
local ffi = require 'ffi'
local fused = require 'fused'
local graph = require 'fused.data.graph'
local nn = fused.nn

local nodes, seed = tonumber(arg[1]) or 10000, tonumber(arg[2]) or 1
fused.set_num_threads(tonumber(arg[3]) or 1)
local FEATURES, HIDDEN, EPOCHS, LR, WEIGHT_DECAY = 32, 16, 200, 0.01, 5e-4

fused.manual_seed(seed)
local g = graph.stochastic_block_model({ nodes = nodes, communities = 4, degree = 10,
                                         homophily = 0.8, features = FEATURES, signal = 0.25 })
local train, test = graph.split(nodes, { train = math.floor(nodes / 20), test = math.floor(nodes / 2) })
local A = fused.sparse.normalize_adjacency(g.adjacency) -- D^-1/2 (A + I) D^-1/2
print(string.format('graph: %d nodes, %d edges, %d communities; %d labelled nodes, %d held out',
                    nodes, g.adjacency:nnz() / 2, g.communities, train:numel(), test:numel()))

local labels = g.labels:totable()
local function labels_of(list) -- the labels of a list of nodes
  local out = {}
  for i, node in ipairs(list) do out[i] = labels[node] end
  return out
end
local train_labels, test_nodes = labels_of(train:totable()), test:totable()

-- The share of held-out nodes whose row of logits peaks at their label.
local function accuracy(logits)
  local l, right = logits:totable(), 0
  for _, i in ipairs(test_nodes) do
    local best = 1
    for c = 2, #l[i] do if l[i][c] > l[i][best] then best = c end end
    if best == labels[i] then right = right + 1 end
  end
  return right / #test_nodes
end

-- The majority class of the labelled nodes, scored on the held-out ones.
local counts, majority = {}, nil
for _, c in ipairs(train_labels) do
  counts[c] = (counts[c] or 0) + 1
  if not majority or counts[c] > counts[majority] then majority = c end
end
local hits = 0
for _, i in ipairs(test_nodes) do if labels[i] == majority then hits = hits + 1 end end

-- A progress line, redrawn on a terminal.
ffi.cdef 'int isatty(int fd);'
local redraw = ffi.C.isatty(1) == 1
local function progress(text, last)
  if redraw then io.write('\r', text, last and '\n' or '') io.flush()
  elseif last or text:find(' 50/') or text:find('100/') then print(text) end
end

-- Two layers trained with Adam on the labelled rows' cross-entropy. With the graph, two
-- GraphConvs (relu between); without, two Linears and the relu between them by hand.
local function fit(name, device, with_graph)
  fused.manual_seed(seed + 1) -- the same starting weights on every device
  local first = with_graph and nn.GraphConv(FEATURES, HIDDEN, { activation = 'relu' }) or nn.Linear(FEATURES, HIDDEN)
  local second = with_graph and nn.GraphConv(HIDDEN, g.communities) or nn.Linear(HIDDEN, g.communities)
  first:to(device); second:to(device)
  local X, A_d, train_d = g.features:to(device), A:to(device), train:to(device)
  local params, grads = {}, {}
  for _, m in ipairs({ first, second }) do
    local p, q = m:parameters()
    for i = 1, #p do params[#params + 1], grads[#grads + 1] = p[i], q[i] end
  end
  local opt = fused.optim.Adam(params, grads, { lr = LR, weight_decay = WEIGHT_DECAY })
  local criterion = nn.CrossEntropyLoss()
  local d_logits = fused.zeros({ nodes, g.communities }, { device = device })
  local function forward()
    if with_graph then return second:forward(A_d, first:forward(A_d, X)) end
    return second:forward(first:forward(X):relu())
  end
  for epoch = 1, EPOCHS do
    for _, grad in ipairs(grads) do grad:zero_() end
    local picked = fused.functional.embedding(train_d, forward()) -- the labelled nodes' logits
    local loss = criterion:forward(picked, train_labels)
    d_logits:zero_()
    fused.functional.embedding_backward_accumulate(criterion:backward(picked, train_labels), train_d, d_logits)
    local d_hidden = second:backward(d_logits)
    if not with_graph then d_hidden:mul_(fused.d_relu(first.buffers.output)) end
    first:backward(d_hidden)
    opt:step()
    progress(string.format('%-9s %-4s epoch %3d/%d  loss %.4f', name, device, epoch, EPOCHS, loss), epoch == EPOCHS)
  end
  return accuracy(forward())
end

local results = {}
for _, device in ipairs(fused.cuda.is_available() and { 'cpu', 'cuda' } or { 'cpu' }) do
  local gcn, features_only = fit('GCN', device, true), fit('features', device, false)
  results[#results + 1] = string.format('%-4s held-out accuracy: GCN %.3f, features only %.3f, majority class %.3f',
                                        device, gcn, features_only, hits / #test_nodes)
end
print(table.concat(results, '\n'))
