-- examples/train.lua --sample and the text task's data: a checkpoint keeps its vocabulary and
-- a digest of its data, so that sampling never remaps characters after the file is edited and a
-- resumed run never trains on another text; logits that are not finite, or that the
-- temperature makes infinite, are an error naming the character, never a run of one character.
local helper = require 'spec.helper'
local fused = helper.fused
local child = require 'spec.train_child'
local train = dofile(child.script)

local dir, path = child.scratch()
local FOX = string.rep('the quick brown fox jumps over the lazy dog. ', 20)
local data, ck = path('fox.txt'), path('text.safetensors')

local function write(p, text)
  local f = assert(io.open(p, 'wb'))
  f:write(text)
  f:close()
end

-- train.lua with args, in this process: status, result, what it printed on out, on err.
local function run(args)
  local out, err = helper.sink(), helper.sink()
  local status, result = train.run(args, { out = out, err = err })
  return status, result, out:text(), err:text()
end

local TINY = { '--task', 'text', '--data', data, '--hidden', '8', '--seq-len', '6', '--batch', '4',
               '--device', 'cpu' }
local function tiny(args)
  local argv = { unpack(TINY) }
  for _, a in ipairs(args) do argv[#argv + 1] = a end
  return argv
end

-- A copy of ck with edit(tensors, meta) applied, at path(name).
local function edited(name, edit)
  local tensors, meta = fused.load(ck)
  edit(tensors, meta)
  fused.save(path(name), tensors, meta)
  return path(name)
end

local SAMPLE = { '--sample', ck, '--prime', 'the ', '--sample-len', '30' }

describe('examples/train.lua --sample and the data of a text checkpoint', function()
  local before -- the sample of the checkpoint as trained
  setup(function()
    write(data, FOX)
    assert.are.equal(0, (run(tiny({ '--steps', '2', '--checkpoint', ck }))))
    local status, _, out = run(SAMPLE)
    assert.are.equal(0, status, out)
    before = out
  end)
  after_each(function() write(data, FOX) end)
  teardown(function() os.execute('rm -rf ' .. dir) end)

  it("samples in the checkpoint's vocabulary, whatever became of the data file", function()
    write(data, (FOX:gsub('z', 'Z'))) -- as many characters, all numbered anew ('Z' sorts first)
    local status, _, out, err = run(SAMPLE)
    assert.are.equal(0, status, err)
    assert.are.equal(before, out)
    assert.are.equal('', err)
    os.remove(data) -- no file needed
    status, _, out = run(SAMPLE)
    assert.are.equal(0, status)
    assert.are.equal(before, out)
  end)

  it("goes on from a newline by default, or from the vocabulary's first character in a text without one", function()
    local _, _, from_space = run({ '--sample', ck, '--prime', ' ', '--sample-len', '20' })
    local status, _, out = run({ '--sample', ck, '--sample-len', '20' })
    assert.are.equal(0, status, out)
    assert.are.equal(from_space:sub(2), out) -- FOX has no newline; ' ' sorts first
  end)

  it('refuses to resume on a data file that is not the one the run trained on, saying how it differs', function()
    for _, case in ipairs({
      { FOX:gsub('z', 'Z'), "the same size (900 bytes); characters not in its vocabulary: 'Z'; characters "
                            .. "of its vocabulary gone: 'z'" },
      { FOX .. '\t!', "902 bytes, 900 when the checkpoint was saved; characters not in its vocabulary: '\\9!'" },
      { 'eht' .. FOX:sub(4), 'the same size (900 bytes); the same characters; other contents' },
    }) do
      write(data, case[1])
      local status, result = run({ '--resume', ck, '--steps', '3' })
      assert.are.equal(2, status, result.error)
      assert.are.equal('--resume ' .. ck .. ': --data ' .. data .. ' is not the text the run trained on: '
                       .. case[2] .. ' (the checkpoint keeps its size and digest)', result.error)
    end
    write(data, FOX)
    local status, result, out = run({ '--resume', ck, '--steps', '3' })
    assert.are.equal(0, status, out)
    assert.are.equal(3, result.step)
  end)

  it("samples a checkpoint without a vocabulary with the file's, if its size fits, with a warning", function()
    local old = edited('old.safetensors', function(_, meta) meta.data = nil end)
    local status, _, out, err = run({ '--sample', old, '--prime', 'the ', '--sample-len', '30' })
    assert.are.equal(0, status, err)
    assert.are.equal(before, out)
    assert.are.equal('warning: ' .. old .. ' records no vocabulary (saved before checkpoints kept one): the '
                     .. 'characters of --data ' .. data .. " as it is now are taken for its model's; if the file "
                     .. 'has changed since, the sample is in the wrong characters\n', err)
    write(data, FOX .. 'Z')
    local result
    status, result = run({ '--sample', old })
    assert.are.equal(2, status)
    assert.are.equal('--sample ' .. old .. ': the checkpoint records no vocabulary (saved before checkpoints '
                     .. 'kept one), and --data ' .. data .. ' has 29 characters where its model has 28: the '
                     .. 'file has changed', result.error)
  end)

  it('refuses logits that are not finite, or a temperature that makes them so, naming the character', function()
    local huge = edited('huge.safetensors', function(t) t['model.head.weight']:fill_(3e38) end)
    for _, case in ipairs({
      { { '--sample', huge }, '--sample ' .. huge .. ": no sample: character " },
      { { '--sample', huge }, "inf (the model's logits must be finite)" },
      { { '--sample', ck, '--temperature', '1e-320' }, '--sample ' .. ck .. ": no sample: character 1: the "
        .. "logit of ' ' is " },
      { { '--sample', ck, '--prime', 'the', '--temperature', '1e-320' }, 'no sample: character 1: the logit of ' },
    }) do
      local status, result = run(case[1])
      assert.are.equal(2, status, table.concat(case[1], ' '))
      assert.is_truthy(result.error:find(case[2], 1, true), result.error)
    end
    local _, result = run({ '--sample', ck, '--temperature', '1e-320' })
    assert.is_truthy(result.error:find(' / temperature 9.9998886718268e-321 = inf (the logits divided by '
                                       .. '--temperature must be finite: a larger one keeps them so)', 1, true),
                     result.error)
  end)

  it('trains on when a sample cannot be drawn at the temperature, saying why at each step', function()
    local status, result, out = run(tiny({ '--steps', '4', '--sample-every', '2', '--temperature', '1e-320' }))
    assert.are.equal(0, status, out)
    assert.are.equal(4, result.step)
    for _, step in ipairs({ 2, 4 }) do
      assert.is_truthy(out:find('warning: step ' .. step .. ': no sample: character 1: the logit of ', 1, true), out)
    end
    assert.is_falsy(out:find('--- sample', 1, true), out)
  end)
end)
