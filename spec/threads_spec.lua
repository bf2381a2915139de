-- fused.set_num_threads bounds the count: 100000 hung creating threads, and 2^40 wrapped to 0
-- (all cores) through the FFI's int32_t, in silence.
local helper = require 'spec.helper'
local fused = helper.fused
local ffi = require 'ffi'

describe('fused.set_num_threads', function()
  it('refuses a count past 1024 or past int32, keeping the one set', function()
    local before = fused.get_num_threads()
    for _, n in ipairs({ 1025, 100000, 2 ^ 31, 2 ^ 40 }) do
      local ok, err = pcall(fused.set_num_threads, n)
      assert.is_false(ok)
      assert.is_truthy(tostring(err):find("set_num_threads: argument 'n' expected", 1, true), err)
      assert.is_truthy(tostring(err):find('1024 (0: all cores), got ' .. tostring(n), 1, true), err)
      assert.are.equal(before, fused.get_num_threads())
    end
    local C = require('fused.lib').C
    assert.are.equal(-1, C.fused_set_num_threads(1025))
    assert.are.equal("set_num_threads: argument 'n' expected 0 to 1024 (0: all cores), got 1025",
                     ffi.string(C.fused_last_error()))
    fused.set_num_threads(before)
  end)

  it('is an option of train.lua bounded the same', function()
    local child = require 'spec.train_child'
    local train = dofile(child.script)
    local status, result = train.run({ '--threads', '100000' }, { out = helper.sink(), err = helper.sink() })
    assert.are.equal(2, status)
    assert.are.equal("option '--threads' expected 0 to 1024, got 100000", result.error)
  end)
end)
