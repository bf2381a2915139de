-- Torch7's table slices, t[{2, {1, 3}, {-1}, {}}]: every entry kind against a plain-Lua slice of
-- t:totable(), views sharing t's storage, assignment through them, and the errors.
local helper = require 'spec.helper'
local fused = helper.fused

-- The reference: entries applied to nested Lua tables, dim by dim.
local function ref_slice(x, entries, k)
  k = k or 1
  if type(x) ~= 'table' then return x end
  local e, n = entries[k], #x
  local function pos(i) return i < 0 and n + i + 1 or i end
  if type(e) == 'number' then return ref_slice(x[pos(e)], entries, k + 1) end
  local first, last = 1, n
  if e and #e > 0 then first, last = pos(e[1]), pos(e[#e]) end
  local r = {}
  for i = first, last do r[#r + 1] = ref_slice(x[i], entries, k + 1) end
  return r
end

-- The entries of one dim of size 4 or 5 that every kind of entry takes.
local kinds = { 2, -1, { 2, 3 }, { -2, -1 }, { 1, -2 }, { 3 }, { -4 }, {} }

-- Every list of up to 3 entries of those kinds (nil: fewer entries than dims).
local function all_entries(fn)
  for a = 0, #kinds do
    for b = 0, a == 0 and 0 or #kinds do
      for c = 0, b == 0 and 0 or #kinds do
        fn({ kinds[a], kinds[b], kinds[c] })
      end
    end
  end
end

describe('t[{...}], Torch7 slices', function()
  it('select, range, single-element range, whole dim and negative indices, as the reference', function()
    for _, dtype in ipairs({ 'float32', 'float64', 'int64' }) do
      local t = fused.arange(1, 81, { dtype = dtype }):view(4, 4, 5)
      local ref = t:totable()
      all_entries(function(entries)
        local got, want = t[entries], ref_slice(ref, entries)
        if type(want) == 'number' then
          assert.are.equal(want, got)
        else
          assert.are.same(want, got:totable())
        end
      end)
    end
  end)

  it('a slice is a view: a write through it shows in the base, and the base in it', function()
    local t = fused.zeros(3, 4, { dtype = 'float64' })
    local s = t[{ { 2, 3 }, -1 }]
    assert.are.same({ 2 }, s:shape())
    s:fill_(7)
    assert.are.same({ { 0, 0, 0, 0 }, { 0, 0, 0, 7 }, { 0, 0, 0, 7 } }, t:totable())
    t[3][4] = 9
    assert.are.same({ 7, 9 }, s:totable())
    assert.are.equal(t.storage, s.storage)
    -- {i} keeps the dim; i drops it
    assert.are.same({ 1, 4 }, t[{ { 2 } }]:shape())
    assert.are.same({ 4 }, t[{ 2 }]:shape())
    -- a strided base slices by its strides
    local tt = fused.arange(1, 13, { dtype = 'float64' }):view(3, 4):t()
    assert.are.same(ref_slice(tt:totable(), { { 2, 3 }, { -2 } }), tt[{ { 2, 3 }, { -2 } }]:totable())
  end)

  it('t[{...}] = v fills with a number and copies a tensor, in place', function()
    local t = fused.arange(1, 13, { dtype = 'float64' }):view(3, 4)
    local ref = t:totable()
    t[{ { 1, 2 }, 3 }] = 0
    ref[1][3], ref[2][3] = 0, 0
    assert.are.same(ref, t:totable())
    t[{ -1, { 2, 4 } }] = fused.tensor({ 10, 20, 30 }, { dtype = 'float64' })
    ref[3][2], ref[3][3], ref[3][4] = 10, 20, 30
    assert.are.same(ref, t:totable())
    t[{ 2, 1 }] = 5 -- an index for every dim: the element
    ref[2][1] = 5
    assert.are.same(ref, t:totable())
    t[{ {}, { 1 } }] = fused.tensor({ { -1 }, { -2 }, { -3 } }, { dtype = 'float64' })
    ref[1][1], ref[2][1], ref[3][1] = -1, -2, -3
    assert.are.same(ref, t:totable())
  end)

  it('errors name the index, the dim and its size, or the entry that is not one', function()
    local t = fused.zeros(3, 4)
    helper.assert_error(function() return t[{ 1, 5 }] end, 'slice_spec.lua:',
                        'index 5 is out of range for dim 2 of size 4 (expected 1..4, or -4..-1 from the end)')
    helper.assert_error(function() return t[{ { 1, 4 } }] end, 'index 4 is out of range for dim 1 of size 3')
    helper.assert_error(function() return t[{ {}, { -5 } }] end, 'index -5 is out of range for dim 2 of size 4')
    helper.assert_error(function() t[{ 0 }] = 1 end, 'index 0 is out of range for dim 1 of size 3')
    helper.assert_error(function() return t[{ 1, 1, 1 }] end,
                        't[{...}] expected a list of at most 2 entries (one per dim), got {1, 1, 1}')
    helper.assert_error(function() return t[{ 1, 'x' }] end,
                        "t[{...}] expected an index, {first, last}, {i} or {} at position 2, got string")
    helper.assert_error(function() return t[{ { 1, 2, 3 } }] end, 'at position 1, got {1, 2, 3}')
    helper.assert_error(function() return t[{ { 3, 1 } }] end,
                        't[{...}] range {3, 1} at position 1 is empty (3..1 of dim 1\'s size 3)')
    helper.assert_error(function() t[{ 1 }] = 'x' end, 'slice_spec.lua:',
                        't[{...}] = v expected a number, a boolean or a tensor for v, got string')
    helper.assert_error(function() t[{ 1 }] = fused.zeros(3) end, "t[{...}] = v: argument 'v' expected a shape that broadcasts to t[{...}]'s shape [4], got [3]")
  end)
end)
