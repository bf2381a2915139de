-- examples/train.lua --cell FILE (a cell of fused.cell.define from a file as examples/cells/
-- has them) and --heads: it trains (a linear cell too), carries every state when sampling,
-- resumes only with the file named again, and refuses what cannot run, saying why.
local helper = require 'spec.helper'
local fused = helper.fused
local safetensors = require 'fused.safetensors'
local child = require 'spec.train_child'
local train = dofile(child.script)

local dir, path = child.scratch()
local TINY = { '--hidden', '8', '--seq-len', '6', '--batch', '4', '--eval-every', '3', '--device', 'cpu' }
local SLSTM = 'examples/cells/slstm.lua'

local function run(args, plain)
  local argv = {}
  for _, a in ipairs(plain and {} or TINY) do argv[#argv + 1] = a end
  for _, a in ipairs(args) do argv[#argv + 1] = a end
  local out, err = helper.sink(), helper.sink()
  local status, result = train.run(argv, { out = out, err = err })
  return status, result, out:text() .. err:text()
end

local function write(p, s)
  local f = assert(io.open(p, 'wb'))
  f:write(s)
  f:close()
end

describe('train.lua --cell FILE --heads', function()
  teardown(function() os.execute('rm -rf ' .. dir) end)

  it('trains the sLSTM of a file with 2 heads, saves its blocks, resumes with the file named again', function()
    local ck = path('slstm.safetensors')
    local status, result, text = run({ '--cell', SLSTM, '--heads', '2', '--steps', '6',
                                       '--checkpoint', ck })
    assert.are.equal(0, status, text)
    assert.is_true(result.heldout == result.heldout and result.heldout < math.huge)
    local saved = safetensors.load(ck)
    assert.are.same({ 32, 4 }, saved['model.rnn.weight_hh_l0']:shape())
    status, result, text = run({ '--resume', ck, '--steps', '9' })
    assert.are.equal(2, status)
    assert.matches("the checkpoint's cell is the file " .. SLSTM .. ': name it again with --cell', text, 1, true)
    status, result, text = run({ '--resume', ck, '--cell', SLSTM, '--steps', '9' })
    assert.are.equal(0, status, text)
    assert.are.equal(9, result.step)
  end)

  it('a text model of a cell of several states samples with every state carried', function()
    local data, ck = path('text.txt'), path('slstm_text.safetensors')
    write(data, string.rep('abcabd abcabd\n', 40))
    local status, _, text = run({ '--task', 'text', '--data', data, '--cell', SLSTM, '--steps', '3',
                                  '--sample-every', '3', '--sample-len', '5', '--checkpoint', ck })
    assert.are.equal(0, status, text)
    status, _, text = run({ '--sample', ck, '--cell', SLSTM, '--sample-len', '7', '--device', 'cpu' },
                          true)
    assert.are.equal(0, status, text)
  end)

  it('refuses a cell it cannot run and heads that do not fit, saying why', function()
    local function fails(args, want)
      local status, _, text = run(args)
      assert.are.equal(2, status, text)
      assert.matches(want, text, 1, true)
    end
    fails({ '--cell', path('none.lua') }, "option '--cell' expected lltm, lstm, gru or a Lua file of a cell definition, got " .. path('none.lua'))
    write(path('number.lua'), 'return 5')
    fails({ '--cell', path('number.lua') }, 'the file returns number, not a function of fused.cell')
    write(path('wrong.lua'), "return function(F) return { name = 'wrong_cell', gates = 1, state = 'h', step = function(gx) end } end")
    fails({ '--cell', path('wrong.lua') }, '--cell ' .. path('wrong.lua') .. ': fused.cell.define: wrong_cell: step returned nothing')
    fails({ '--cell', 'lltm', '--heads', '2' }, '--heads 2: the LLTM has no heads')
    fails({ '--cell', SLSTM, '--heads', '3' }, '--heads 3 does not divide --hidden 8')
    -- a cell whose step reads x needs an input as wide as --hidden
    local HIGHWAY = 'examples/cells/highway_gru.lua'
    fails({ '--cell', HIGHWAY }, '--cell ' .. HIGHWAY .. ": its step reads x, the layer's input at "
          .. "its unit, so the input size must equal --hidden 8; got the adding task's 2 inputs")
    fails({ '--cell', HIGHWAY, '--task', 'copy', '--embed', '6' }, 'must equal --hidden 8; got --embed 6')
  end)

  it('trains a linear cell (no recurrent weights saved), resumes it, refuses heads for it', function()
    local MINGRU, ck = 'examples/cells/mingru.lua', path('mingru.safetensors')
    local status, _, text = run({ '--cell', MINGRU, '--layers', '2', '--steps', '3',
                                  '--checkpoint', ck })
    assert.are.equal(0, status, text)
    local saved = safetensors.load(ck)
    assert.are.same({ 16, 8 }, saved['model.rnn.weight_ih_l1']:shape())
    assert.is_nil(saved['model.rnn.weight_hh_l0'])
    local result
    status, result, text = run({ '--resume', ck, '--cell', MINGRU, '--steps', '5' })
    assert.are.equal(0, status, text)
    assert.are.equal(5, result.step)
    status, _, text = run({ '--cell', MINGRU, '--heads', '2' })
    assert.are.equal(2, status, text)
    assert.matches('--heads 2: the linear cell of ' .. MINGRU .. ' has no recurrent weights to cut '
                   .. 'into heads', text, 1, true)
  end)

  it("a linear cell resumed from its checkpoint goes on with the uninterrupted run's losses", function()
    -- RG-LRU: a per-unit parameter (a_param, and Adam's moments of it) and x read by the step
    local RGLRU, ck = 'examples/cells/rglru.lua', path('rglru.safetensors')
    local args = { '--cell', RGLRU, '--task', 'copy', '--embed', '8', '--layers', '2' }
    local function with(more)
      local t = { unpack(args) }
      for _, a in ipairs(more) do t[#t + 1] = a end
      return t
    end
    local status, whole, text = run(with({ '--steps', '6' }))
    assert.are.equal(0, status, text)
    status, _, text = run(with({ '--steps', '3', '--checkpoint', ck }))
    assert.are.equal(0, status, text)
    local resumed
    status, resumed, text = run({ '--resume', ck, '--cell', RGLRU, '--steps', '6' })
    assert.are.equal(0, status, text)
    for k = 4, 6 do
      assert.is_number(whole.losses[k])
      assert.are.equal(whole.losses[k], resumed.losses[k], 'step ' .. k)
    end
  end)

  it('trains a cell whose step reads x where --embed equals --hidden', function()
    local status, _, text = run({ '--cell', 'examples/cells/highway_gru.lua', '--task', 'copy',
                                  '--embed', '8', '--layers', '2', '--steps', '3' })
    assert.are.equal(0, status, text)
    assert.matches('done: 3 steps', text, 1, true)
  end)
end)
