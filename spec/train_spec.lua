-- examples/train.lua, run on tiny models, in-process and (for what reaches the terminal or the
-- current directory) in a child luajit: determinism, exact resumption from a checkpoint (after
-- a finished run and after Ctrl-C), the NaN stop, the log, saves that fail, and usage errors.
local ffi = require 'ffi'
local helper = require 'spec.helper'
local fused = helper.fused
local json = require 'fused.json'
local child = require 'spec.train_child'
local train = dofile(child.script)

local dir, path = child.scratch()

local TINY = { '--hidden', '8', '--seq-len', '6', '--batch', '4', '--eval-every', '3', '--device', 'cpu' }

-- Runs train.lua with TINY and the given arguments; returns status, result and the output.
local function run(args, on_step)
  local argv = {}
  for _, a in ipairs(TINY) do argv[#argv + 1] = a end
  for _, a in ipairs(args) do argv[#argv + 1] = a end
  local out, err = helper.sink(), helper.sink()
  local status, result = train.run(argv, { out = out, err = err, on_step = on_step })
  return status, result, out:text() .. err:text()
end

local read = helper.read

local function write(p, s)
  local f = assert(io.open(p, 'wb'))
  f:write(s)
  f:close()
end

-- Runs train.lua with TINY and args in a child luajit, from directory cwd, after the shell
-- words `env`, raising SIGINT after step `interrupt_at` if given; returns its exit status (or
-- the signal that ended it) and everything it printed on stdout and stderr.
local function run_child(cwd, env, args, interrupt_at)
  local argv = {}
  for _, a in ipairs(TINY) do argv[#argv + 1] = string.format('%q', a) end
  for _, a in ipairs(args) do argv[#argv + 1] = string.format('%q', a) end
  write(path('child.lua'), string.format([[
    local ffi = require 'ffi'
    pcall(ffi.cdef, 'int raise(int sig);')
    local train = dofile(%q)
    os.exit(train.run({ %s }, { on_step = function(step) if step == %d then ffi.C.raise(2) end end }))
  ]], child.script, table.concat(argv, ', '), interrupt_at or -1))
  return child.luajit(cwd, env, path('child.lua'), path('child.out'))
end

local function losses_from(result, first, last)
  local list = {}
  for s = first, last do list[#list + 1] = result.losses[s] end
  return list
end

pcall(ffi.cdef, 'int raise(int sig);')

describe('examples/train.lua', function()
  teardown(function() os.execute('rm -rf ' .. dir) end)

  it('gives the same losses for the same seed, and others for another seed', function()
    local s1, a = run({ '--steps', '6' })
    local s2, b = run({ '--steps', '6' })
    local _, c = run({ '--steps', '6', '--seed', '2' })
    assert.are.equal(0, s1)
    assert.are.equal(0, s2)
    assert.are.equal(6, #a.losses)
    assert.are.same(a.losses, b.losses)
    assert.are_not.same(a.losses, c.losses)
    assert(a.heldout and a.heldout == b.heldout)
  end)

  it('resumed from a checkpoint, continues with exactly the uninterrupted losses', function()
    for _, args in ipairs({ { '--optim', 'adam' }, { '--optim', 'sgd', '--task', 'copy', '--seq-len', '3' },
                            { '--optim', 'rmsprop', '--dtype', 'float64' },
                            { '--dropout', '0.3', '--task', 'copy', '--seq-len', '3' } }) do
      local full_args = { '--steps', '8', unpack(args) }
      local _, full = run(full_args)
      local first_args = { '--steps', '5', '--checkpoint', path('ck.safetensors'), unpack(args) }
      assert.are.equal(0, (run(first_args)))
      local status, resumed, text = run({ '--steps', '8', '--resume', path('ck.safetensors'), unpack(args) })
      assert.are.equal(0, status, text)
      assert.is_truthy(text:find('resumed from ' .. path('ck.safetensors') .. ' at step 5', 1, true))
      assert.is_nil(resumed.losses[5])
      assert.are.same(losses_from(full, 6, 8), losses_from(resumed, 6, 8))
      assert.are.equal(full.heldout, resumed.heldout)
    end
  end)

  it('saves a checkpoint on Ctrl-C, from which the run continues exactly', function()
    local _, full = run({ '--steps', '7' })
    local ck = path('interrupted.safetensors')
    local status, stopped, text = run({ '--steps', '7', '--checkpoint', ck }, function(step)
      if step == 4 then ffi.C.raise(2) end -- SIGINT, as Ctrl-C sends
    end)
    assert.are.equal(130, status)
    assert.is_truthy(text:find('interrupted at step 4: checkpoint saved to ' .. ck, 1, true), text)
    assert.are.equal(4, stopped.step)
    local _, meta = fused.load(ck)
    assert.are.equal('4', meta.step)
    assert.are.equal(8, json.decode(meta.options).hidden)
    local _, resumed = run({ '--steps', '7', '--resume', ck })
    assert.are.same(losses_from(full, 5, 7), losses_from(resumed, 5, 7))
  end)

  it('on Ctrl-C without --checkpoint, saves in the current directory and says where in full', function()
    os.execute('mkdir -p ' .. path('cwd'))
    local status, text = run_child(path('cwd'), '', { '--steps', '7' }, 4)
    assert.are.equal(130, status, text)
    local ck = path('cwd/interrupted.safetensors')
    assert.is_truthy(text:find('interrupted at step 4: checkpoint saved to ' .. ck .. ' (continue with '
                               .. '--resume ' .. ck .. ')', 1, true), text)
    local _, meta = fused.load(ck)
    assert.are.equal('4', meta.step)
  end)

  it('says when a checkpoint cannot be saved, trains on, and saves the next one that can be', function()
    local _, full = run({ '--steps', '7' })
    local ck = path('vanishing/ck.safetensors')
    os.execute('mkdir -p ' .. path('vanishing'))
    local status, result, text = run({ '--steps', '7', '--checkpoint', ck }, function(step)
      if step == 1 then os.execute('rm -r ' .. path('vanishing')) end -- the save at step 3 fails
      if step == 4 then os.execute('mkdir ' .. path('vanishing')) end
    end)
    assert.are.equal(0, status, text)
    assert.is_truthy(text:find("warning: step 3: checkpoint not saved: save: cannot write '" .. ck
                               .. "': No such file or directory; training goes on", 1, true), text)
    assert.is_falsy(text:find('step 6: checkpoint not saved', 1, true), text)
    assert.are.same(full.losses, result.losses)
    assert.are.equal(ck, result.checkpoint)
    assert.is_truthy(text:find('checkpoint: ' .. ck, 1, true), text)
    local _, meta = fused.load(ck)
    assert.are.equal('7', meta.step)
  end)

  it('keeps the last checkpoint in a temporary file when its path cannot take it', function()
    local ck = path('replaced/ck.safetensors')
    os.execute('mkdir -p ' .. path('replaced'))
    local status, result, text = run({ '--steps', '7', '--checkpoint', ck }, function(step)
      if step == 1 then os.execute('rm -r ' .. path('replaced') .. ' && touch ' .. path('replaced')) end
    end)
    assert.are.equal(0, status, text)
    for _, step in ipairs({ 3, 6 }) do
      assert.is_truthy(text:find(string.format("warning: step %d: checkpoint not saved: save: cannot "
                                               .. "write '%s': Not a directory; training goes on", step, ck),
                                 1, true), text)
    end
    local fallback = result.checkpoint
    assert.is_truthy(text:find("warning: step 7: checkpoint not saved: save: cannot write '" .. ck
                               .. "': Not a directory; saved to " .. fallback .. ' instead', 1, true), text)
    local _, meta = fused.load(fallback)
    os.remove(fallback)
    assert.are.equal('7', meta.step)
  end)

  it("keeps gnuplot's output off the terminal", function()
    -- A stand-in gnuplot on the PATH: it chatters on both outputs and writes the PNG it is given.
    os.execute('mkdir -p ' .. path('bin') .. ' ' .. path('plots'))
    write(path('bin/gnuplot'), [[#!/bin/sh
      png=$(sed -n "s/^set output '\(.*\)'$/\1/p")
      echo 'gnuplot chatter on stdout'
      echo 'gnuplot chatter on stderr' >&2
      : > "$png"
    ]])
    os.execute('chmod +x ' .. path('bin/gnuplot'))
    local png = path('plots/losses.png')
    local status, text = run_child(dir, 'PATH=' .. path('bin') .. ':$PATH', { '--steps', '3', '--plot', png })
    assert.are.equal(0, status, text)
    assert.is_truthy(text:find('plot: ' .. png, 1, true), text)
    assert.is_falsy(text:find('chatter', 1, true), text)
    assert.is_truthy(io.open(png)):close()
  end)

  it('refuses --checkpoint and --plot where no file can be made, before any step', function()
    write(path('a-file'), '')
    for _, case in ipairs({
      { '--checkpoint', path('missing/ck.safetensors'), path('missing') .. ': No such file or directory' },
      { '--plot', path('missing/losses.png'), path('missing') .. ': No such file or directory' },
      { '--checkpoint', path('a-file/ck.safetensors'), path('a-file') .. ': Not a directory' },
    }) do
      local steps = 0
      local status, result = run({ '--steps', '3', case[1], case[2] }, function() steps = steps + 1 end)
      assert.are.equal(2, status, case[2])
      assert.are.equal(case[1] .. ' ' .. case[2] .. ': cannot write there (' .. case[3] .. ')', result.error)
      assert.are.equal(0, steps)
    end
  end)

  it('stops with a clear message when the loss is not finite', function()
    local status, result, text = run({ '--steps', '50', '--optim', 'sgd', '--lr', '1e30', '--clip', '0' })
    assert.are.equal(1, status)
    assert.is_truthy(text:find('stopped: the loss became', 1, true), text)
    assert.is_truthy(text:find('Try a lower --lr', 1, true))
    assert(result.step < 50)
  end)

  it('writes the losses to a CSV log and prints a summary against the baseline', function()
    local status, result, text = run({ '--steps', '3', '--log', path('log.csv') })
    assert.are.equal(0, status)
    local f = assert(io.open(path('log.csv')))
    local lines = {}
    for line in f:lines() do lines[#lines + 1] = line end
    f:close()
    assert.are.equal('step,loss,heldout,seconds,tokens_per_s', lines[1])
    assert.are.equal(4, #lines)
    local step, loss, heldout = lines[4]:match('^(%d+),([^,]+),([^,]*),')
    assert.are.equal('3', step)
    assert.are.equal(string.format('%.9g', result.losses[3]), loss)
    assert.are.equal(string.format('%.9g', result.heldout), heldout)
    assert.is_truthy(text:find('against the baseline 0.1667 (predicting 1 always)', 1, true), text)
    assert.is_truthy(text:find('log: ' .. path('log.csv'), 1, true))
  end)

  it('trains the copy and text tasks, printing text samples', function()
    local status, copy = run({ '--task', 'copy', '--seq-len', '2', '--steps', '2' })
    assert.are.equal(0, status)
    assert(copy.losses[2] > 0 and copy.losses[2] < 10)
    local f = assert(io.open(path('text.txt'), 'w'))
    f:write(string.rep('the quick brown fox jumps over the lazy dog. ', 20))
    f:close()
    local s2, text_run, out = run({ '--task', 'text', '--data', path('text.txt'), '--steps', '2',
                                    '--sample-every', '2', '--sample-len', '10', '--temperature', '0.5' })
    assert.are.equal(0, s2, out)
    assert(text_run.losses[2] > 0)
    local sample = out:match('%-%-%- sample at step 2 %(temperature 0.5%)\n(.-)\n%-%-%-')
    assert.are.equal(10, #sample)
  end)

  it('prints the options for --help', function()
    local status, _, text = run({ '--help' })
    assert.are.equal(0, status)
    assert.is_truthy(text:find('usage: luajit examples/train.lua', 1, true))
    assert.is_truthy(text:find('--temperature', 1, true))
  end)

  -- The parser's own errors are spec/train_options_spec.lua's; these pin train.lua's options.
  it('rejects bad options with a usage error', function()
    fused.save(path('plain.safetensors'), { weight = fused.zeros({ 2 }) })
    for _, case in ipairs({
      { { '--bogus', '1' }, "unknown option '--bogus'" },
      { { '--lr', '-1' }, "option '--lr' expected > 0, got -1" },
      { { '--optim', 'lbfgs' }, "option '--optim' expected one of adam, adamw, rmsprop, sgd, got 'lbfgs'" },
      { { '--task', 'text' }, '--task text needs --data FILE' },
      { { '--task', 'text', '--data', path('none.txt') }, 'No such file or directory' },
      { { '--task', 'adding', '--seq-len', '1' }, "option '--seq-len' expected >= 2 for the adding task, got 1" },
      { { '--seed', '-3' }, "option '--seed' expected 0 to 1048575, got -3" },
      { { '--steps', '1048575' }, "option '--steps' expected 1 to 1048574, got 1048575" },
      { { '--resume', path('none.safetensors') }, '--resume: load: ' },
      { { '--resume', path('plain.safetensors') }, "is not a training checkpoint of format 'fused-train/2'" },
      { { '--dtype=float16' }, "option '--dtype' expected one of float32, float64, got 'float16'" },
      { { '--dropout', '1' }, "option '--dropout' expected < 1, got 1" },
      { { '--precision', 'bf16', '--dtype', 'float64' }, '--precision bf16 needs --dtype float32, got float64' },
      { { '--precision', 'fp8' }, "option '--precision' expected one of float32, bf16, got 'fp8'" },
      { { '--checkpoint', path('x.st'), '--log', dir .. '/./x.st' }, '--log ' .. dir .. '/./x.st: the same file as '
                                                                     .. '--checkpoint ' .. path('x.st') },
      { { '--task', 'text', '--data', path('t.txt'), '--plot', path('t.txt') }, '--plot ' .. path('t.txt')
                                                                               .. ': the same file as --data' },
      { { '--checkpoint', '' }, "option '--checkpoint' expected a file name, got ''" },
      { { '--task', 'text', '--data', '/dev/zero' }, 'text: /dev/zero: not a regular file (a character device)' },
      { { '--resume', '' }, "--resume: load: argument 'path' expected a file name, got an empty string" },
    }) do
      local status, result, text = run(case[1])
      assert.are.equal(2, status, table.concat(case[1], ' '))
      assert.is_truthy(result.error:find(case[2], 1, true), result.error)
      assert.is_truthy(text:find('(--help lists the options)', 1, true))
    end
  end)

  it('trains with --precision bf16 (the recurrent layer computes in bfloat16)', function()
    local status, result, text = run({ '--steps', '3', '--precision', 'bf16' })
    assert.are.equal(0, status, text)
    assert.is_truthy(text:find('float32 (bf16 products) on cpu', 1, true), text)
    assert.is_truthy(result.heldout > 0)
  end)

  it('--lr-decay cosine starts at --lr and lowers it step by step', function()
    -- SGD's step is lr·grad: the loss at step s is the same with either schedule up to the
    -- first step taken at a lower rate (step 2's), and differs after it.
    local args = { '--steps', '4', '--optim', 'sgd', '--lr', '0.5' }
    local _, constant = run(args)
    local status, cosine, text = run({ '--lr-decay', 'cosine', unpack(args) })
    assert.are.equal(0, status, text)
    assert.is_truthy(text:find('sgd lr 0.5 (cosine decay)', 1, true), text)
    assert.are.same(losses_from(constant, 1, 2), losses_from(cosine, 1, 2))
    assert.are_not.equal(constant.losses[3], cosine.losses[3])
  end)

  it('refuses to resume with model options that differ from the checkpoint', function()
    run({ '--steps', '1', '--checkpoint', path('h.safetensors') })
    local status, result = run({ '--steps', '2', '--resume', path('h.safetensors'), '--hidden', '16' })
    assert.are.equal(2, status)
    assert.is_truthy(result.error:find("--hidden 16 differs from the checkpoint's 8", 1, true), result.error)
  end)
end)
