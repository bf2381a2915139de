-- examples/train.lua refuses a run whose step cannot fit in the machine's memory before it
-- allocates anything (issue 33: `--batch 1e9` ended in an out-of-memory traceback at the first
-- step), naming the options that size it; runs that fit are not refused.
local helper = require 'spec.helper'
local child = require 'spec.train_child'
local SequenceModel = require 'fused.train.model'
local memory = require 'fused.train.memory'
local train = dofile(child.script)

local function run(argv)
  local out, err = helper.sink(), helper.sink()
  local status, result = train.run(argv, { out = out, err = err })
  return status, result, out:text() .. err:text()
end

describe('train.lua memory', function()
  local cases = {
    { { '--batch', '1e9' }, '--batch 1000000000 --seq-len 100 --hidden 64 --layers 1:' },
    { { '--hidden', '1000000' }, '--hidden 1000000' },
    { { '--seq-len', '1000000000' }, '--seq-len 1000000000' },
    { { '--task', 'copy', '--embed', '1000000000' }, '--embed 1000000000' },
    { { '--task', 'copy', '--seq-len', '100000000' }, '--seq-len 100000000' },
    { { '--layers', '100000', '--hidden', '1000' }, '--layers 100000' },
  }
  for _, case in ipairs(cases) do
    it('refuses ' .. table.concat(case[1], ' ') .. ' before allocating', function()
      local argv = { '--device', 'cpu', '--steps', '1' }
      for _, a in ipairs(case[1]) do argv[#argv + 1] = a end
      local status, result, text = run(argv)
      assert.are.equal(2, status, text)
      assert.is_truthy(result.error:find(case[2], 1, true), result.error)
      assert.is_truthy(result.error:find('one training step needs at least', 1, true), result.error)
      assert.is_truthy(result.error:find('of memory (RAM and swap)', 1, true), result.error)
      assert.are.equal('', text:match('^(.-)train%.lua:'), 'printed before the refusal: ' .. text)
    end)
  end

  -- A text over 1 GiB was read whole, then a Lua number per byte: minutes, then 'not enough
  -- memory' (300 MB under a 4 GB limit) or 'size of C type is unknown or too large' (3 GB).
  it('refuses a text file over 1 GiB before reading it', function()
    local path = os.tmpname()
    assert(os.execute('truncate -s 1073741825 ' .. path) == 0)
    local status, result = run({ '--task', 'text', '--data', path, '--device', 'cpu', '--steps', '1' })
    os.remove(path)
    assert.are.equal(2, status)
    assert.are.equal('text: ' .. path .. ' has 1073741825 bytes: a text task reads at most 1073741824 (1 GiB)',
                     result.error)
  end)

  it("refuses a checkpoint whose edited options claim a batch too large, naming it", function()
    local fused = helper.fused
    local json = require 'fused.json'
    local path = os.tmpname()
    local status = run({ '--hidden', '8', '--seq-len', '6', '--batch', '4', '--steps', '2',
                         '--eval-every', '2', '--device', 'cpu', '--checkpoint', path })
    assert.are.equal(0, status)
    local tensors, meta = fused.load(path)
    local options = json.decode(meta.options)
    options.batch = 1e9
    meta.options = json.encode(options)
    fused.save(path, tensors, meta)
    local result
    status, result = run({ '--resume', path, '--steps', '4' })
    os.remove(path)
    assert.are.equal(2, status)
    assert.is_truthy(result.error:find('--resume ' .. path .. ": the checkpoint's --batch 1000000000 --seq-len 6",
                                       1, true), result.error)
    assert.is_truthy(result.error:find('this machine cannot resume it', 1, true), result.error)
  end)

  it('counts at least the parameters, their gradients and the layer outputs', function()
    local task = require('fused.data.adding').new({ seq_len = 10, batch = 3, seed = 1 })
    local opts = { cell = 'lltm', num_layers = 2, hidden_size = 5, dtype = 'float64' }
    local params = (15 * 7 + 15) + (15 * 10 + 15) + (1 * 5 + 1)
    local need = SequenceModel.step_bytes(task, opts, 3)
    assert.are.equal(2 * params * 8 + 2 * 10 * 3 * 5 * 8 + 3 * 1 * 8, need.device)
    assert.are.equal(need.device + (3 + 1000) * 10 * 2 * 8, need.total)
  end)

  it('reads the machine memory', function()
    local have = memory.host_bytes()
    if have then assert.is_true(have > 2 ^ 20) end
    assert.are.equal('1.5 GB', memory.text(1.5 * 2 ^ 30))
  end)
end)
