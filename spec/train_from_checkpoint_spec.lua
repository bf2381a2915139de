-- examples/train.lua from a checkpoint, run as a user runs it (a child luajit): --resume goes on
-- with the run's own options and says which it took; --sample prints text and trains nothing.
local ffi = require 'ffi'
local helper = require 'spec.helper'
local fused = helper.fused
local child = require 'spec.train_child'
local train = dofile(child.script)

local dir, path = child.scratch()

local TINY = { '--hidden', '8', '--seq-len', '6', '--batch', '4', '--device', 'cpu' }

-- train.lua with TINY and args, in this process; returns status, result and the output.
local function run(args, on_step)
  local argv = { unpack(TINY) }
  for _, a in ipairs(args) do argv[#argv + 1] = a end
  local out, err = helper.sink(), helper.sink()
  local status, result = train.run(argv, { out = out, err = err, on_step = on_step })
  return status, result, out:text() .. err:text()
end

-- `luajit examples/train.lua args` in a child: its exit status and its output.
local function run_script(args)
  return child.luajit(dir, '', child.script .. ' ' .. child.quote(args), path('child.out'))
end

-- The losses of a CSV log, in the order of its lines, and its steps.
local function logged(p)
  local losses, steps = {}, {}
  for step, loss in helper.read(p):gmatch('\n(%d+),([^,]+)') do
    steps[#steps + 1], losses[#losses + 1] = tonumber(step), tonumber(loss)
  end
  return losses, steps
end

pcall(ffi.cdef, 'int raise(int sig);')

describe('examples/train.lua from a checkpoint', function()
  teardown(function() os.execute('rm -rf ' .. dir) end)

  it("--resume alone goes on to the run's --steps with its --checkpoint, --log and --eval-every, and says so",
     function()
    local _, full = run({ '--steps', '8', '--eval-every', '3' })
    local ck, log = path('ck.safetensors'), path('losses.csv')
    local status = run({ '--steps', '8', '--eval-every', '3', '--checkpoint', ck, '--log', log }, function(step)
      if step == 4 then ffi.C.raise(2) end -- Ctrl-C
    end)
    assert.are.equal(130, status)
    local text
    status, text = run_script({ '--resume', ck, '--device', 'cpu' })
    assert.are.equal(0, status, text)
    assert.is_truthy(text:find('resumed from ' .. ck .. ' at step 4, to step 8; from the checkpoint: --hidden 8 '
                               .. '--seq-len 6 --batch 4 --steps 8 --eval-every 3 --checkpoint ' .. ck
                               .. ' --log ' .. log .. '\n', 1, true), text)
    assert.is_truthy(text:find('done: 4 steps', 1, true), text)
    assert.is_truthy(text:find('checkpoint: ' .. ck .. '\n', 1, true), text)
    local _, meta = fused.load(ck)
    assert.are.equal('8', meta.step)
    local losses, steps = logged(log)
    assert.are.same({ 1, 2, 3, 4, 5, 6, 7, 8 }, steps)
    for step = 1, 8 do assert.are.equal(string.format('%.9g', full.losses[step]), string.format('%.9g', losses[step])) end

    -- Again: the run is finished, and nothing is trained or written.
    local before = helper.read(log)
    status, text = run_script({ '--resume', ck })
    assert.are.equal(0, status, text)
    assert.are.equal(ck .. ': the run is finished (step 8 of --steps 8); nothing to train, a larger --steps '
                     .. 'trains on\n', text)
    assert.are.equal(before, helper.read(log))
  end)

  it('--resume takes what is given on the command line over what the checkpoint says', function()
    local ck = path('given.safetensors')
    assert.are.equal(0, (run({ '--steps', '2', '--eval-every', '1', '--checkpoint', ck })))
    local status, text = run_script({ '--resume', ck, '--steps', '4', '--eval-every', '2', '--device', 'cpu' })
    assert.are.equal(0, status, text)
    assert.is_truthy(text:find('at step 2, to step 4; from the checkpoint: --hidden 8 --seq-len 6 --batch 4 '
                               .. '--checkpoint ' .. ck .. '\n', 1, true), text)
    assert.is_falsy(text:find('step 3/4', 1, true), text) -- evaluations every 2 steps now
    assert.is_truthy(text:find('step 4/4', 1, true), text)
  end)

  it('--sample prints the prime and what the text model writes after it, and trains nothing', function()
    local data = path('fox.txt')
    local f = assert(io.open(data, 'w'))
    f:write(string.rep('the quick brown fox jumps over the lazy dog. ', 20))
    f:close()
    local ck = path('text.safetensors')
    assert.are.equal(0, (run({ '--task', 'text', '--data', data, '--steps', '2', '--checkpoint', ck })))
    local args = { '--sample', ck, '--prime', 'the ', '--sample-len', '30', '--temperature', '0.5' }
    local status, text = run_script(args)
    assert.are.equal(0, status, text)
    assert.is_truthy(text:match("^the [a-z .]+\n$"), text)
    assert.are.equal(4 + 30 + 1, #text)
    assert.are.equal(text, select(2, run_script(args))) -- the seed's sample, every time
    local _, meta = fused.load(ck)
    assert.are.equal('2', meta.step)
    status, text = run_script({ '--sample', ck, '--sample-len', '5' }) -- after a newline
    assert.are.equal(0, status, text)
    assert.is_truthy(text:match('^[a-z .][a-z .][a-z .][a-z .][a-z .]\n$'), text)
  end)

  it('refuses to sample what cannot be, and bad sampling options, naming the option', function()
    local ck = path('adding.safetensors')
    assert.are.equal(0, (run({ '--steps', '1', '--checkpoint', ck })))
    local text_ck = path('text.safetensors') -- the previous case's
    for _, case in ipairs({
      { { '--sample', ck }, '--sample ' .. ck .. ': a model of the adding task cannot be sampled (only one of '
                            .. '--task text)' },
      { { '--sample', text_ck, '--temperature', '0' }, "option '--temperature' expected > 0, got 0" },
      { { '--sample', text_ck, '--temperature', 'hot' }, "option '--temperature' expected a finite number, got 'hot'" },
      { { '--sample', text_ck, '--temperature', 'inf' }, "option '--temperature' expected a finite number, got 'inf'" },
      { { '--sample', text_ck, '--log', path('s.csv') }, '--log is for training: --sample trains nothing and writes no file' },
      { { '--sample', text_ck, '--checkpoint', text_ck }, '--checkpoint is for training: --sample trains nothing' },
      { { '--sample', text_ck, '--steps', '5' }, '--steps is for training: --sample trains nothing' },
      { { '--sample', text_ck, '--sample-len', '0' }, "option '--sample-len' expected 1 to 1000000, got 0" },
      { { '--sample', text_ck, '--prime', 'The ' }, "--prime: 'T' does not occur in " .. path('fox.txt') },
      { { '--prime', 'the ' }, '--prime is for --sample' },
      { { '--sample', text_ck, '--resume', ck }, '--sample and --resume: one or the other' },
      { { '--sample', path('none.safetensors') }, '--sample: load: ' },
    }) do
      local status, result, text = run(case[1])
      assert.are.equal(2, status, text)
      assert.is_truthy(result.error:find(case[2], 1, true), result.error)
    end
  end)
end)
