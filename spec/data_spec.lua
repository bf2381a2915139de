-- The tasks' data (fused.data.*): the structure of each batch, and reproducibility per
-- (seed, batch) whatever was drawn before.
local helper = require 'spec.helper'
local fused = helper.fused
local adding = require 'fused.data.adding'
local copy = require 'fused.data.copy'
local text = require 'fused.data.text'

local F64 = { dtype = 'float64', device = 'cpu' }

local function with(opts)
  for k, v in pairs(F64) do opts[k] = v end
  return opts
end

describe('fused.data.adding', function()
  it('marks one step in each half, and targets the sum of the marked values', function()
    local task = adding.new(with({ seq_len = 9, batch = 20, seed = 3 }))
    local xs, y = task:batch(1)
    assert.are.same({ 9, 20, 2 }, xs:shape())
    assert.are.same({ 20, 1 }, y:shape())
    local x, t = xs:totable(), y:totable()
    for b = 1, 20 do
      local marked, sum = {}, 0
      for s = 1, 9 do
        local v, m = x[s][b][1], x[s][b][2]
        assert(v >= 0 and v < 1 and (m == 0 or m == 1))
        if m == 1 then marked[#marked + 1], sum = s, sum + v end
      end
      assert.are.equal(2, #marked)
      assert(marked[1] <= 4 and marked[2] >= 5, 'one marker per half')
      assert.are.equal(sum, t[b][1])
    end
  end)

  it('gives batch k of a seed the same numbers whatever ran before', function()
    local task = adding.new(with({ seq_len = 5, batch = 3, seed = 7 }))
    local first = task:batch(4):totable()
    task:batch(1)
    fused.randn({ 10 })
    assert.are.same(first, task:batch(4):totable())
    assert.are_not.same(first, task:batch(5):totable())
    assert.are_not.same(first, adding.new(with({ seq_len = 5, batch = 3, seed = 8 })):batch(4):totable())
    local held = task:heldout()
    assert.are.same({ 5, 1000, 2 }, held:shape())
  end)
end)

describe('fused.data.copy', function()
  it('shows 10 symbols, T - 1 blanks and a delimiter, and asks for the symbols after it', function()
    local T = 4
    local task = copy.new(with({ seq_len = T, batch = 2, seed = 1 }))
    local xs, ys = task:batch(1)
    assert.are.same({ T + 20, 2 }, xs:shape())
    local x, y = xs:totable(), ys:totable()
    for b = 1, 2 do
      for s = 1, 10 do
        assert(x[s][b] >= 2 and x[s][b] <= 9, 'a data symbol')
        assert.are.equal(x[s][b], y[T + 10 + s][b])
      end
      for s = 11, T + 9 do assert.are.equal(1, x[s][b]) end
      assert.are.equal(10, x[T + 10][b])
      for s = T + 11, T + 20 do assert.are.equal(1, x[s][b]) end
      for s = 1, T + 10 do assert.are.equal(1, y[s][b]) end
    end
    assert(math.abs(task.baseline - 10 * math.log(8) / (T + 20)) < 1e-15)
  end)
end)

describe('fused.data.text', function()
  local path = os.tmpname()
  teardown(function() os.remove(path) end)

  it('reads bytes into windows whose targets are the next characters', function()
    local f = assert(io.open(path, 'wb'))
    f:write(string.rep('abcab', 40)) -- 200 bytes: 180 to train, 20 held out
    f:close()
    local task = text.new(with({ path = path, seq_len = 6, batch = 5, seed = 1 }))
    assert.are.same({ 'a', 'b', 'c' }, task.vocab)
    assert.are.equal('cab', task:decode(task:encode('cab')))
    assert.are.same({ 200, { 97, 98, 99 } }, { task.record.bytes, task.record.vocab })
    local vocabulary = text.vocabulary(task.record.vocab) -- what a checkpoint keeps, without the file
    assert.are.same(task:encode('cab'), vocabulary:encode('cab'))
    assert.are.equal('cab', vocabulary:decode(task:encode('cab')))
    assert.are.same({ kind = 'every', classes = 3, loss = 'CrossEntropyLoss' }, vocabulary.output)
    helper.assert_error(function() task:encode('ab\n') end, "text: the character '\\10' is not in the vocabulary")
    local xs, ys = task:batch(1)
    local x, y = xs:totable(), ys:totable()
    for b = 1, 5 do
      for s = 1, 5 do assert.are.equal(x[s + 1][b], y[s][b]) end
    end
    local hx = task:heldout()
    assert.are.same({ 6, 3 }, hx:shape())
    local p = { a = 0.4, b = 0.4, c = 0.2 }
    local entropy = -(2 * p.a * math.log(p.a) + p.c * math.log(p.c))
    assert(math.abs(task.baseline - entropy) < 1e-12)
  end)

  it('says when the file is too short for the sequence length', function()
    local f = assert(io.open(path, 'wb'))
    f:write('short text')
    f:close()
    helper.assert_error(function() text.new(with({ path = path, seq_len = 6, batch = 1, seed = 1 })) end,
                        'has 10 bytes; with --seq-len 6 it needs at least 70')
  end)
end)
