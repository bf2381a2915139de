-- fused.train.log: the CSV log of a run, begun or continued. (Its gnuplot plot is
-- spec/train_spec.lua's, through a stand-in gnuplot.)
require 'spec.helper'
local Log = require 'fused.train.log'

local function lines(path)
  local list = {}
  for line in io.lines(path) do list[#list + 1] = line end
  return list
end

describe('train.log', function()
  local path = os.tmpname()
  teardown(function() os.remove(path) end)

  it('writes a header, then a line a step with the held-out loss only where given', function()
    local log = Log.open(path)
    log:write(1, 0.5, nil, 0.25, 1000)
    log:write(2, 1 / 3, 0.125, 0.5, 1234.4)
    log:close()
    assert.are.same({ 'step,loss,heldout,seconds,tokens_per_s', '1,0.5,,0.250,1000',
                      '2,0.333333333,0.125,0.500,1234' }, lines(path))
  end)

  it('continues an existing log with append, and replaces it without', function()
    local log = Log.open(path, { append = true })
    log:write(3, 0.25, nil, 1, 1)
    log:close()
    assert.are.equal(4, #lines(path))
    Log.open(path):close()
    assert.are.same({ 'step,loss,heldout,seconds,tokens_per_s' }, lines(path))
  end)

  it('appends only to a log: any other file, a directory or a FIFO is an error, left as it was', function()
    local other = os.tmpname()
    local f = assert(io.open(other, 'w'))
    f:write('#!/bin/sh\necho important\n')
    f:close()
    local fifo = os.tmpname()
    os.remove(fifo)
    assert(os.execute('mkfifo ' .. fifo) == 0)
    for _, case in ipairs({
      { other, other .. " exists and is not a log (its first line is not 'step,loss,heldout,seconds,tokens_per_s'): not appended to" },
      { "/tmp", "/tmp: not a regular file (a directory)" },
      { fifo, fifo .. ': not a regular file (a FIFO)' },
    }) do
      local ok, err = pcall(Log.open, case[1], { append = true })
      assert.is_false(ok)
      assert.is_truthy(err:find('Log.open: ' .. case[2], 1, true), err)
    end
    f = assert(io.open(other))
    assert.are.equal('#!/bin/sh\necho important\n', f:read('*a'))
    f:close()
    os.remove(other)
    os.remove(fifo)
  end)

  it('says which file it cannot open', function()
    local ok, err = pcall(Log.open, '/nonexistent-dir/log.csv')
    assert.is_false(ok)
    assert.is_truthy(err:find('Log.open: /nonexistent-dir/log.csv: No such file or directory', 1, true), err)
  end)
end)
