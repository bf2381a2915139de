-- make bench-gc: a GraphConv's forward and backward (128 -> 64 features, relu) over a 10,000-node
-- graph of about 0.1 % density, with A sparse and dense, on one thread and on all; PyTorch's
-- torch.sparse.mm and dense A @ X @ W in the same run where python3 imports torch; then the
-- 100,000-node graph with 1,000,000 edges, sparse, on one thread. Medians of REPS steps.
package.path = './?.lua;' .. package.path
dofile(debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. 'checkout.lua')
local fused = require 'fused'
local bench = require 'bench.common'
local graph = require 'fused.data.graph'

local N, F, O, REPS = 10000, 128, 64, 5

-- Median forward and backward times in ms of `reps` steps of a fresh layer over A.
local function time_layer(A, X, reps)
  fused.manual_seed(1)
  local gc = fused.nn.GraphConv(F, O, { activation = 'relu' })
  local g = fused.randn({ X:size(1), O })
  local first_backward
  local fw, bw = {}, {}
  for i = 0, reps do -- step 0 warms up (and builds a sparse Aᵀ)
    local t0 = bench.now_us()
    gc:forward(A, X)
    local t1 = bench.now_us()
    gc:backward(g)
    local t2 = bench.now_us()
    if i == 0 then first_backward = (t2 - t1) / 1e3 else fw[i], bw[i] = (t1 - t0) / 1e3, (t2 - t1) / 1e3 end
  end
  return bench.median_min(fw), bench.median_min(bw), first_backward
end

local function graph_of(nodes)
  fused.manual_seed(0)
  local g = graph.stochastic_block_model({ nodes = nodes, degree = 10, features = F })
  return fused.sparse.normalize_adjacency(g.adjacency), g.features
end

local A, X = graph_of(N)
local dense = A:to_dense()
local cores = fused.get_num_threads()
print(string.format('GraphConv %d -> %d (relu), N = %d, %d entries in A (%.2f %%), float32, median of %d steps',
                    F, O, N, A:nnz(), 100 * A:nnz() / N ^ 2, REPS))
print('| A | threads | forward ms | backward ms | forward + backward ms |')
print('| --- | --- | --- | --- | --- |')
for _, threads in ipairs({ 1, cores }) do
  fused.set_num_threads(threads)
  for _, case in ipairs({ { 'sparse', A }, { 'dense', dense } }) do
    local fw, bw = time_layer(case[2], X, REPS)
    print(string.format('| fused, %s | %d | %.1f | %.1f | %.1f |', case[1], threads, fw, bw, fw + bw))
  end
end
dense = nil
collectgarbage()

local torch = io.popen('python3 -c "import torch" 2>&1'):read('*a')
if torch == '' then
  local p = io.popen(string.format('python3 bench/graph_conv_torch.py %d %d %d %d 1,%d %d', N, A:nnz(), F, O, cores, REPS))
  io.write(p:read('*a'))
  p:close()
else
  print('PyTorch: absent here (python3 cannot import torch), so no PyTorch rows in this run')
end

fused.set_num_threads(1)
local big_A, big_X = graph_of(100000)
local fw, bw, first = time_layer(big_A, big_X, 3)
print(string.format('100,000 nodes, %d entries in A (with self-loops), one thread: forward %.0f ms, '
                    .. 'backward %.0f ms (the first, which builds Aᵀ: %.0f ms)', big_A:nnz(), fw, bw, first))
