-- examples/train.lua given an edited checkpoint (--resume or --sample): every field that does
-- not fit is a usage error (exit 2) naming the file and the field, never a traceback, and nothing
-- is allocated or written before it is checked; the files it writes are the checkpoint it
-- resumes and a log beside it, whatever its options say (in a child, as a user runs it).
local helper = require 'spec.helper'
local fused = helper.fused
local json = require 'fused.json'
local child = require 'spec.train_child'
local train = dofile(child.script)

local dir, path = child.scratch()
local ck = path('run.safetensors')

-- A copy of the checkpoint with edit(tensors, meta) applied, at path(name).
local function edited(name, edit)
  local tensors, meta = fused.load(ck)
  edit(tensors, meta)
  fused.save(path(name), tensors, meta)
  return path(name)
end

local function json_edit(field, edit)
  return function(_, meta)
    local v = json.decode(meta[field])
    edit(v)
    meta[field] = json.encode(v)
  end
end

local CASES = {
  { 'negative step', function(_, m) m.step = '-1' end, [[metadata 'step' expected an integer 0 to 1048574, got "-1"]] },
  { 'fractional step', function(_, m) m.step = '1.5' end, [[metadata 'step' expected an integer 0 to 1048574, got "1.5"]] },
  { 'a step past the last', function(_, m) m.step = '99999999999' end,
    [[metadata 'step' expected an integer 0 to 1048574, got "99999999999"]] },
  { 'heldout not a number', function(_, m) m.heldout = 'low' end,
    [[metadata 'heldout' expected a finite number >= 0 or '', got "low"]] },
  { 'heldout NaN', function(_, m) m.heldout = 'nan' end, [[metadata 'heldout' expected a finite number >= 0 or '', got "nan"]] },
  { 'heldout negative', function(_, m) m.heldout = '-1' end, [[metadata 'heldout' expected a finite number >= 0 or '', got "-1"]] },
  { 'a sample length past the bound', json_edit('options', function(o) o['sample-len'] = 1e12 end),
    "the checkpoint's option '--sample-len' expected 1 to 1000000, got 1000000000000" },
  { 'options not JSON', function(_, m) m.options = '{hidden' end, [[metadata 'options' expected a JSON object, got "{hidden"]] },
  { 'an option of the wrong type', json_edit('options', function(o) o.hidden = 'eight' end),
    "the checkpoint's option '--hidden' expected a number, got eight" },
  { 'an option out of range', json_edit('options', function(o) o.layers = 0 end),
    "the checkpoint's option '--layers' expected >= 1, got 0" },
  { 'an option not among the choices', json_edit('options', function(o) o.optim = 'lbfgs' end),
    "the checkpoint's option '--optim' expected one of adam, adamw, rmsprop, sgd, got 'lbfgs'" },
  { 'a cell file it names', json_edit('options', function(o) o.cell = 'rnn.lua' end),
    "the checkpoint's cell is the file rnn.lua: name it again with --cell rnn.lua" },
  { "the optimizer's step fractional", json_edit('optim', function(o) o.step = 1.5 end),
    "metadata 'optim' field 'step' expected an integer >= 0, got 1.5" },
  { "the optimizer's hyperparameters missing", json_edit('optim', function(o) o.hyper = nil end),
    "metadata 'optim' field 'hyper' expected an object, got nil" },
  { 'a learning rate of the wrong type', json_edit('optim', function(o) o.hyper.lr = 'fast' end),
    "Adam:load_state_dict: option 'lr' expected a finite number >= 0, got the string \"fast\"" },
  { 'a parameter missing', function(t) t['model.head.bias'] = nil end, "head.bias" },
  { 'a parameter of the wrong shape', function(t) t['model.head.bias'] = fused.zeros({ 3 }) end, 'head.bias' },
  { 'an optimizer buffer missing', function(t) t['optim.1.exp_avg'] = nil end,
    "Adam:load_state_dict: buffer '1.exp_avg' expected a tensor of shape" },
  { 'an unknown option', json_edit('options', function(o) o.bogus = 1 end), "the checkpoint's unknown option '--bogus'" },
  { 'an infinite option', function(_, m) m.options = m.options:gsub('"lr":[^,}]+', '"lr":1e999') end,
    "the checkpoint's option '--lr' expected a finite number, got 'inf'" },
  { 'an option not taken, of the wrong kind', json_edit('options', function(o) o.device = 'tpu' end),
    "the checkpoint's option '--device' expected one of auto, cpu, cuda, got 'tpu'" },
  { 'data that is a device', json_edit('options', function(o) o.task, o.data = 'text', '/dev/zero' end),
    'text: /dev/zero: not a regular file (a character device)' },
  { 'a log that is not a file name', json_edit('options', function(o) o.log = '/tmp/..' end),
    "the checkpoint's option '--log' /tmp/.. is not a file name; name the log with --log" },
  { 'a NaN weight', function(t) t['model.rnn.weight'][{ 2, 3 }] = 0 / 0 end,
    "tensor 'model.rnn.weight' holds nan at element 13: a run that diverged" },
  { 'an infinite bias', function(t) t['model.head.bias'] = fused.tensor({ 1 / 0 }) end,
    "tensor 'model.head.bias' holds inf at element 1" },
  { "a NaN in the optimizer's state", function(t) t['optim.1.exp_avg_sq'][{ 1, 1 }] = 0 / 0 end,
    "tensor 'optim.1.exp_avg_sq' holds nan at element 1" },
  { 'options that claim a model larger than its tensors', json_edit('options', function(o) o.hidden = 3000000 end),
    "the tensors do not fit the checkpoint's options (--task adding --cell lltm --layers 1 --hidden 3000000 "
    .. "--embed 32 --dtype float32): 'model.head.weight' is 1x8 float32 where the options make 1x3000000 "
    .. "float32; 'model.rnn.bias' is 24 float32 where the options make 9000000 float32; 'model.rnn.weight' is "
    .. '24x10 float32 where the options make 9000000x3000002 float32' },
  { 'a tensor of another dtype than the options', function(t) t['model.head.bias'] = t['model.head.bias']:double() end,
    "'model.head.bias' is 1 float64 where the options make 1 float32" },
  { 'an extra parameter', function(t) t['model.rnn.weight_l1'] = fused.zeros({ 2 }) end,
    "the tensors do not fit the checkpoint's options (--task adding --cell lltm --layers 1 --hidden 8 --embed 32 "
    .. "--dtype float32): 'model.rnn.weight_l1' (2) is not a parameter of the model" },
  { 'a model tensor missing', function(t) t['model.rnn.bias'] = nil end, "'model.rnn.bias' is missing (expected 24)" },
  { 'a data record not JSON', function(_, m) m.data = '[1,' end, [[metadata 'data' expected a JSON object, got "[1,"]] },
  { 'a data record without a digest', function(_, m) m.data = '{"bytes":9,"vocab":[97]}' end,
    [[metadata 'data' expected {"bytes": a count, "digest": hex digits, "vocab": [...]}, got bytes 9, digest nil]] },
  { 'a vocabulary out of order', function(_, m) m.data = '{"bytes":9,"digest":"ab","vocab":[98,97]}' end,
    "metadata 'data' field 'vocab' expected increasing byte values (0 to 255), got 97 at 2" },
  { 'a vocabulary beyond bytes', function(_, m) m.data = '{"bytes":9,"digest":"ab","vocab":[97,256]}' end,
    "metadata 'data' field 'vocab' expected increasing byte values (0 to 255), got 256 at 2" },
  { 'an empty vocabulary', function(_, m) m.data = '{"bytes":9,"digest":"ab","vocab":[]}' end,
    "metadata 'data' field 'vocab' expected a list of byte values, got table" },
  { 'a tensor of neither part', function(t) t.extra = fused.zeros({ 1 }) end,
    "tensor 'extra' expected a name 'model.<parameter>' or 'optim.<buffer>'" },
}

-- Writes text to p.
local function write(p, text)
  local f = assert(io.open(p, 'wb'))
  f:write(text)
  f:close()
end

describe('examples/train.lua with an edited checkpoint', function()
  setup(function()
    local status = train.run({ '--hidden', '8', '--seq-len', '6', '--batch', '4', '--device', 'cpu',
                               '--steps', '1', '--checkpoint', ck }, { out = helper.sink(), err = helper.sink() })
    assert.are.equal(0, status)
  end)
  teardown(function() os.execute('rm -rf ' .. dir) end)

  it('writes only to the checkpoint it resumes and a log beside it, wherever its options point', function()
    os.execute('mkdir -p ' .. path('elsewhere'))
    local victim, other = path('elsewhere/victim.txt'), path('elsewhere/other.csv')
    write(victim, 'precious\n')
    write(other, 'step,loss,heldout,seconds,tokens_per_s\nmine\n')
    local file = edited('pointing.safetensors', json_edit('options', function(o)
      o.checkpoint, o.log = victim, other
    end))
    local status, text = child.luajit(dir, '', child.script .. ' ' .. child.quote({ '--resume', file, '--steps', '2' }),
                                      path('child.out'))
    assert.are.equal(0, status, text)
    assert.is_truthy(text:find('--checkpoint ' .. file .. ' --log ' .. path('other.csv') .. '\n', 1, true), text)
    assert.are.equal('precious\n', helper.read(victim))
    assert.are.equal('step,loss,heldout,seconds,tokens_per_s\nmine\n', helper.read(other))
    local _, meta = fused.load(file)
    assert.are.equal('2', meta.step)
    assert.is_truthy(helper.read(path('other.csv')):match('^step,loss,heldout,seconds,tokens_per_s\n2,'))
  end)

  it('never appends to a file beside the checkpoint that is not a log', function()
    write(path('notes.txt'), 'precious\n')
    local file = edited('notes.safetensors', json_edit('options', function(o) o.log = '/home/x/notes.txt' end))
    local status, text = child.luajit(dir, '', child.script .. ' ' .. child.quote({ '--resume', file, '--steps', '2' }),
                                      path('child.out'))
    assert.are.equal(2, status, text)
    assert.is_truthy(text:find('train.lua: --log ' .. path('notes.txt') .. ': ' .. path('notes.txt')
                               .. ' exists and is not a log', 1, true), text)
    assert.are.equal('precious\n', helper.read(path('notes.txt')))
    assert.are.equal('1', select(2, fused.load(file)).step)
  end)

  it('refuses a file that is truncated, claims sizes it does not hold, or is not a file, naming it', function()
    local bytes = helper.read(ck)
    local header_len = 0
    for i = 8, 1, -1 do header_len = header_len * 256 + bytes:byte(i) end
    local header = bytes:sub(9, 8 + header_len)
    -- The same file with its header's text edited (the length field rewritten to match).
    local function with_header(text)
      local n, len = #text, {}
      for i = 1, 8 do len[i], n = string.char(n % 256), math.floor(n / 256) end
      return table.concat(len) .. text .. bytes:sub(9 + header_len)
    end
    local huge = header:gsub('"model.head.bias":{"data_offsets":%[0,4%],"dtype":"F32","shape":%[1%]}',
                             '"model.head.bias":{"data_offsets":[0,16000000000000],"dtype":"F32","shape":[4000000000000]}')
    assert.are_not.equal(header, huge)
    write(path('truncated.safetensors'), bytes:sub(1, -5))
    write(path('huge.safetensors'), with_header(huge))
    write(path('huge-length.safetensors'), '\255\255\255\255\255\255\255\127' .. bytes:sub(9))
    os.execute('mkdir -p ' .. path('dir.safetensors') .. ' && mkfifo ' .. path('fifo.safetensors'))
    for _, case in ipairs({
      { 'truncated.safetensors', 'run past the end of the data' },
      { 'huge.safetensors', "tensor \"model.head.bias\": data_offsets [0, 16000000000000] run past the end of the data" },
      { 'huge-length.safetensors', "header length over 2^53: expected at most 100000000 (the format's limit)" },
      { 'dir.safetensors', 'not a regular file (a directory)' },
      { 'fifo.safetensors', 'not a regular file (a FIFO)' },
    }) do
      for _, flag in ipairs({ '--resume', '--sample' }) do
        local status, text = child.luajit(dir, 'timeout 20', child.script .. ' ' .. child.quote({ flag, path(case[1]) }),
                                          path('child.out'))
        assert.are.equal(2, status, text)
        assert.is_truthy(text:find('train.lua: ' .. flag .. ': load: ' .. path(case[1]) .. ': ', 1, true), text)
        assert.is_truthy(text:find(case[2], 1, true), text)
      end
    end
  end)

  -- In this process, as train.lua's main chunk runs it: a usage error comes back as exit status
  -- 2 and its message; anything else (a traceback) is raised.
  for i, case in ipairs(CASES) do
    it('refuses ' .. case[1] .. ', naming the file and the field', function()
      local file = edited(i .. '.safetensors', case[2])
      local err = helper.sink()
      local status, result = train.run({ '--resume', file, '--steps', '2' }, { out = helper.sink(), err = err })
      assert.are.equal(2, status, err:text())
      local text = err:text()
      assert.is_truthy(text:find('^train.lua: %-%-resume'), text)
      assert.is_truthy(text:find(file .. ': ', 1, true), text)
      assert.is_truthy(text:find(case[3], 1, true), text)
      assert.is_truthy(result.error:find(case[3], 1, true), result.error)
    end)
  end
end)
