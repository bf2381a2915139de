-- fused.train.progress: durations, and the progress line (only the final lines away from a
-- terminal).
local helper = require 'spec.helper'
local Progress = require 'fused.train.progress'

describe('train.progress', function()
  it('writes durations in the two largest units, and ? for an unknown one', function()
    assert.are.equal('42s', Progress.duration(42.4))
    assert.are.equal('3m07s', Progress.duration(187))
    assert.are.equal('2h05m', Progress.duration(7500))
    assert.are.equal('?', Progress.duration(0 / 0))
    assert.are.equal('?', Progress.duration(math.huge))
  end)

  it('away from a terminal, writes only the final lines: step, loss, held-out, throughput, ETA', function()
    local out = helper.sink()
    local progress = Progress.new(out, { steps = 10, first = 3, tokens_per_step = 100 })
    progress:start()
    progress:stop()
    assert(progress:rate(3) > 0 and progress:elapsed() >= 0)
    progress:show(3, 0.5, nil, false)
    assert.are.equal('', out.text())
    progress:show(4, 0.25, 0.125, true)
    assert.is_truthy(out.text():match('^step 4/10  loss 0%.2500  held%-out 0%.1250  %d+ tok/s  ETA %S+\n$'),
                     out.text())
    progress:line('', true) -- ends a redrawn line on a terminal; nothing here
    assert.is_nil(out.text():find('\n.', 1))
  end)
end)
