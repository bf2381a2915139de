-- fused.data.graph: the stochastic block model is reproducible from the seed, symmetric, free
-- of self-loops and homophilous as asked; the split is disjoint.
local helper = require 'spec.helper'
local fused = helper.fused
local graph = require 'fused.data.graph'
local err = helper.assert_error

local function sbm(seed)
  fused.manual_seed(seed)
  return graph.stochastic_block_model({ nodes = 300, communities = 3, degree = 6, homophily = 0.9, features = 5 })
end

describe('fused.data.graph', function()
  it('makes the same graph from the same seed, and another from another', function()
    local a, b, c = sbm(1), sbm(1), sbm(2)
    assert.are.same(a.adjacency.col_idx:totable(), b.adjacency.col_idx:totable())
    assert.are.same(a.labels:totable(), b.labels:totable())
    assert.are.equal(0, helper.rel_error(a.features, b.features))
    assert.are_not.same(a.labels:totable(), c.labels:totable())
  end)

  it('is symmetric, without self-loops, mostly within communities', function()
    local g = sbm(3)
    local A = g.adjacency:to_dense()
    assert.are.equal(0, helper.rel_error(A, A:t():contiguous()))
    local dense, labels = A:totable(), g.labels:totable()
    local within, all = 0, 0
    for i = 1, 300 do
      assert.are.equal(0, dense[i][i])
      assert(labels[i] >= 1 and labels[i] <= 3)
      for j = 1, 300 do
        all = all + dense[i][j]
        if labels[i] == labels[j] then within = within + dense[i][j] end
      end
    end
    assert(all > 300 * 6 * 0.9, 'about `degree` edges per node: ' .. all / 300)
    assert(within / all > 0.85, 'homophily 0.9 (+ 0.1 / 3 by chance): ' .. within / all)
    assert.are.same({ 300, 5 }, g.features:shape())
  end)

  it('splits the nodes into disjoint sets', function()
    local train, test = graph.split(50, { train = 10, test = 30 })
    local seen = {}
    for _, list in ipairs({ train:totable(), test:totable() }) do
      for _, i in ipairs(list) do
        assert(i >= 1 and i <= 50 and not seen[i])
        seen[i] = true
      end
    end
    err(function() graph.split(50, { train = 30, test = 30 }) end,
        "graph.split: options 'train' and 'test' expected at most 50 nodes in all, got 60")
    err(function() graph.stochastic_block_model({ nodes = -1 }) end,
        "graph.stochastic_block_model: option 'nodes' expected a positive number, got -1")
  end)
end)
