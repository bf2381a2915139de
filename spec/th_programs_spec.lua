-- Public Torch7 programs (examples/torch7/, README there says where from) run with `fused th`,
-- their files unchanged: each for a few iterations on a small input, its losses falling.
-- spec/th_programs/record.lua prints the losses its criterions compute; nngraph_readme.lua runs
-- nngraph's README examples as that README does.
local helper = require 'spec.helper'
local shell_quote = helper.shell_quote

-- The checkout, as an absolute path: the programs run in their own directories.
local here = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './')
local pwd = io.popen('cd ' .. shell_quote(here .. '..') .. ' && pwd')
local root = pwd:read('*l') .. '/'
pwd:close()

-- Runs `fused th` in dir with the arguments; returns its output (stdout and stderr) and
-- whether it exited 0.
local function fused_th(dir, args)
  local command = string.format('cd %s && %sFUSED_NO_READLINE=1 %s th %s 2>&1; echo "exit $?"', shell_quote(dir),
                                helper.library_env(root), shell_quote(root .. 'bin/fused'), args)
  local p = io.popen(command)
  local out = p:read('*a')
  p:close()
  local status = out:match('exit (%d+)\n$')
  return out:gsub('exit %d+\n$', ''), status == '0'
end

local function record(dir, program, args)
  local out, ok = fused_th(root .. 'examples/torch7/' .. dir,
                           shell_quote(root .. 'spec/th_programs/record.lua') .. ' ' .. program .. ' ' .. (args or ''))
  assert(ok, out)
  local losses = {}
  for v in out:gmatch('loss (%S+)\n') do losses[#losses + 1] = tonumber(v) end
  return losses, out
end

local function mean(list, first, last)
  local s = 0
  for i = first, last do s = s + list[i] end
  return s / (last - first + 1)
end

describe('what the programs need from fused th', function()
  -- Each a script run as a program runs, its output compared.
  local function run(script)
    local path = os.tmpname()
    local f = assert(io.open(path, 'w'))
    f:write(script)
    f:close()
    local out = fused_th('.', path)
    os.remove(path)
    return out
  end

  it("Penlight's modules as globals, as th loaded them (char-rnn's path.join)", function()
    assert.equals('a/b\n', run("print(path.join('a', 'b'))"))
  end)

  it('torch.eye(n), square (char-rnn\'s OneHot)', function()
    assert.equals('3\t3\t1\t0\n', run("local e = torch.eye(3) print(e:size(1), e:size(2), e[2][2], e[1][2])"))
  end)

  it("x.new(...), Torch7's constructor as a field (optim's rosenbrock): a tensor of the default type", function()
    assert.equals('3\ttorch.DoubleTensor\t0\n', run("local y = torch.Tensor(2).new(3) print(y:size(1), y:type(), y:nElement() - 3)"))
  end)

  it("nn.MSECriterion compares a [n] target with a [n, 1] output element by element, as Torch7's", function()
    assert.equals('2.5\t-1\t2\n', run([[
require 'nn'
local c = nn.MSECriterion()
local output, target = torch.Tensor({ { 1 }, { 2 } }), torch.Tensor({ 2, 4 })
local g = c:backward(output, target)
print(c:forward(output, target), g[1][1], g:numel())]]))
  end)
end)

describe('public Torch7 programs under fused th', function()
  it("optim's XOR example: getParameters and an optim.sgd closure", function()
    local losses = record('optim-xor', 'xor.lua')
    assert.equals(50, #losses) -- one per epoch's feval
    for _, l in ipairs(losses) do assert.is_true(l == l and l < 2) end
    -- lr 0.01 for 50 steps, as the doc has it: a slow fall, every step.
    for i = 2, #losses do assert.is_true(losses[i] < losses[i - 1], 'loss rose at step ' .. i) end
    assert.is_true(losses[50] < losses[1] - 0.05)
  end)

  it("nn's manual XOR training: backward, zeroGradParameters, updateParameters", function()
    local losses, out = record('nn-xor', 'manual.lua')
    assert.equals(2500, #losses)
    assert.is_true(mean(losses, 2301, 2500) < 0.6 * mean(losses, 1, 200))
    -- The test points: XOR's signs, as the doc shows them.
    local outputs = {}
    for v in out:gmatch('\n%s*(%-?%d+%.%d+)\n%[') do outputs[#outputs + 1] = tonumber(v) end
    assert.equals(4, #outputs)
    assert.is_true(outputs[1] < 0 and outputs[2] > 0 and outputs[3] > 0 and outputs[4] < 0, out)
  end)

  -- optim's own test scripts: Rosenbrock's function from x = (0, 0), where it is 1, to its
  -- minimum 0 at (1, 1); each prints the values it went through after 'fx='.
  for _, case in ipairs({ { 'test_rmsprop.lua', 1e-3 }, { 'test_lbfgs.lua', 1e-5 } }) do
    it("optim's " .. case[1] .. ' on Rosenbrock: f falls from 1 to near its minimum', function()
      local out, ok = fused_th(root .. 'examples/torch7/optim-rosenbrock', case[1])
      assert(ok, out)
      -- lbfgs's script runs twice (a batch, then stochastic steps): each list is checked.
      local lists = 0
      for list in (out .. '\n\n'):gmatch('fx=\n(.-)\n\n') do
        local fx = {}
        for v in list:gmatch('%d+\t(%S+)') do fx[#fx + 1] = tonumber(v) end
        assert.is_true(#fx > 5, list)
        assert.is_true(fx[1] > 0.5 and fx[#fx] < case[2], list)
        lists = lists + 1
      end
      assert.is_true(lists >= 1, out)
    end)
  end

  it("nn's StochasticGradient XOR example", function()
    local losses = record('nn-xor', 'stochastic_gradient.lua')
    assert.is_true(#losses > 0)
  end)

  it("nngraph's README examples build and run gModules", function()
    local expected = {
      ['mlp.lua'] = 'dot MLP\nmlp output 1 gradInput 20\n',
      ['mlp_operators.lua'] = 'mlp output 0 gradInput 0\n',
      ['two_inputs.lua'] = 'dot Big MLP\ngmod output {1,1} gradInput {20,10}\n',
      ['two_inputs_operators.lua'] = 'gmod output 0 gradInput 0\n',
      ['split.lua'] = 'dot Forward Graph\ndot Backward Graph\ng output 50 gradInput 2x10\n',
      ['join.lua'] = 'dot Forward Graph\ndot Backward Graph\ng output 160 gradInput 10\n',
      ['join_operators.lua'] = 'g output 0 gradInput 0\n',
      ['annotate.lua'] = 'dot Forward Graph\ndot Backward Graph\ng output 160 gradInput 10\n',
    }
    for name, want in pairs(expected) do
      local out, ok = fused_th(root .. 'examples/torch7/nngraph-readme',
                               shell_quote(root .. 'spec/th_programs/nngraph_readme.lua') .. ' ' .. name)
      assert(ok, out)
      assert.equals(want, out, name)
    end
  end)

  describe("karpathy/char-rnn's train.lua", function()
    local data, checkpoints
    before_each(function()
      data, checkpoints = os.tmpname(), os.tmpname()
      os.remove(data)
      os.remove(checkpoints)
      assert(os.execute('mkdir -p ' .. data .. ' && cp ' .. root .. 'examples/torch7/char-rnn/data/tiny/input.txt ' .. data) == 0)
    end)
    after_each(function() os.execute('rm -rf ' .. data .. ' ' .. checkpoints) end)

    local args = '-gpuid -1 -rnn_size 32 -num_layers 2 -seq_length 16 -batch_size 8 -max_epochs 1 '
      .. '-eval_val_every 40 -data_dir %s -checkpoint_dir %s'

    it('preprocesses its text into vocab.t7 and data.t7 (torch.save), and loads them', function()
      local out = fused_th(root .. 'examples/torch7/char-rnn', 'train.lua ' .. args:format(data, checkpoints))
      assert.matches('saving [^\n]*data.t7\nloading data files...\n', out)
      assert.matches('vocab size: 55\n', out, 1, true)
      local torch = require 'fused.th.torch'
      local vocab = torch.load(data .. '/vocab.t7')
      local count = 0
      for c, i in pairs(vocab) do
        assert.equals(1, #c)
        assert.is_true(i >= 1 and i <= 55)
        count = count + 1
      end
      assert.equals(55, count)
      local text = io.open(data .. '/input.txt'):read('*a')
      local encoded = torch.load(data .. '/data.t7')
      assert.equals(#text, encoded:numel())
      for i = 1, 100 do assert.equals(vocab[text:sub(i, i)], encoded[i]) end
    end)

    it("copies its LSTM with model_utils.clone_many_times (through a torch.MemoryFile)", function()
      local script = os.tmpname()
      local f = assert(io.open(script, 'w'))
      f:write([[
require 'nn'
require 'nngraph'
require 'util.OneHot'
local LSTM = require 'model.LSTM'
local model_utils = require 'util.model_utils'
local rnn = LSTM.lstm(55, 32, 2, 0)
local clones = model_utils.clone_many_times(rnn, 3)
local x, state = torch.Tensor({ 3, 5 }), {}
for i = 1, 4 do state[i] = torch.randn(2, 32) end
local a = rnn:forward({ x, unpack(state) })
local b = clones[2]:forward({ x, unpack(state) })
-- The clones share the parameters: a step on the original moves them.
rnn:parameters()[1]:add(1)
local c = clones[3]:forward({ x, unpack(state) })
print(#clones, torch.typename(clones[1]), (a[#a] - b[#b]):abs():max(), (c[#c] - b[#b]):abs():max() > 0)]])
      f:close()
      local out = fused_th(root .. 'examples/torch7/char-rnn', script)
      os.remove(script)
      assert.equals('3\tnn.gModule\t0\ttrue\n', out)
    end)

    it('trains, its loss falling, and saves checkpoints', function()
      local out, ok = fused_th(root .. 'examples/torch7/char-rnn', 'train.lua ' .. args:format(data, checkpoints))
      assert(ok, out)
      local losses = {}
      for v in out:gmatch('train_loss = (%S+),') do losses[#losses + 1] = tonumber(v) end
      assert.is_true(mean(losses, #losses - 4, #losses) < mean(losses, 1, 5) - 0.3)
    end)
  end)
end)
