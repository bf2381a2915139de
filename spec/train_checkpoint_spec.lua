-- fused.train.checkpoint: a run (state_dicts and metadata) through a safetensors file and back,
-- checked on load, and saves that fail without stopping the run.
local helper = require 'spec.helper'
local fused = helper.fused
local json = require 'fused.json'
local checkpoint = require 'fused.train.checkpoint'
local SequenceModel = require 'fused.train.model'

local F64 = { dtype = 'float64' }
local dir = os.tmpname()
os.remove(dir)
assert(os.execute('mkdir -p ' .. dir) == 0)

local function copy_task() -- token inputs: the model has an embedding
  return require('fused.data.copy').new({ seq_len = 2, batch = 3, seed = 1, dtype = 'float64',
                                          device = 'cpu' })
end

-- A model and an Adam that took a step, and the same fresh.
local function run_pair()
  local task = copy_task()
  local function make()
    local model = SequenceModel(task, { cell = 'lltm', hidden_size = 4, embedding_dim = 3,
                                        dtype = 'float64', device = 'cpu' })
    local params, grads = model:parameters()
    return model, fused.optim.Adam(params, grads, { lr = 0.1 })
  end
  local model, opt = make()
  local xs, ys = task:batch(1)
  model:loss(xs, ys, true)
  opt:step()
  local fresh_model, fresh_opt = make()
  return model, opt, fresh_model, fresh_opt
end

describe('train.checkpoint', function()
  teardown(function() os.execute('rm -rf ' .. dir) end)

  it("saves model:state_dict() as 'model.*' and the optimizer's as 'optim.*', with the run's metadata", function()
    local model, opt = run_pair()
    local path = dir .. '/run.safetensors'
    checkpoint.save(path, model, opt, { step = 7, options = { hidden = 4, data = false }, heldout = 0.125 })
    local tensors, meta = fused.load(path)
    assert.are.same({ 'model.embed.weight', 'model.head.bias', 'model.head.weight', 'model.rnn.bias',
                      'model.rnn.weight', 'optim.1.exp_avg', 'optim.1.exp_avg_sq', 'optim.2.exp_avg',
                      'optim.2.exp_avg_sq', 'optim.3.exp_avg', 'optim.3.exp_avg_sq', 'optim.4.exp_avg',
                      'optim.4.exp_avg_sq', 'optim.5.exp_avg', 'optim.5.exp_avg_sq' },
                    helper.sorted_keys(tensors))
    assert.are.same(model.rnn.weight:totable(), tensors['model.rnn.weight']:totable())
    assert.are.equal('fused-train/2', meta.format)
    assert.are.equal('7', meta.step)
    assert.are.equal('0.125', meta.heldout)
    assert.are.same({ hidden = 4, data = false }, json.decode(meta.options))
    local optim = json.decode(meta.optim)
    assert.are.equal(1, optim.step)
    assert.are.equal(5, optim.params)
    assert.are.equal(0.1, optim.hyper.lr)
  end)

  it("keeps a text task's data record (size, digest, vocabulary) and gives it back", function()
    local model, opt = run_pair()
    local path = dir .. '/data.safetensors'
    local record = { bytes = 900, digest = '0123abcd', vocab = { 10, 32, 97 } }
    checkpoint.save(path, model, opt, { step = 1, options = {}, data = record })
    assert.are.same(record, json.decode(select(2, fused.load(path)).data))
    assert.are.same(record, checkpoint.load(path).data)
    checkpoint.save(path, model, opt, { step = 1, options = {} })
    assert.is_nil(select(2, fused.load(path)).data)
    assert.is_nil(checkpoint.load(path).data)
  end)

  it('loads in a script that requires nothing before it', function()
    local model, opt = run_pair()
    local path = dir .. '/alone.safetensors'
    checkpoint.save(path, model, opt, { step = 3, options = {} })
    local status, text = require('spec.train_child').luajit(dir, '', "-e 'io.write(require([[fused.train.checkpoint]])"
                                                            .. ".load([[" .. path .. "]]).step)'", dir .. '/alone.out')
    assert.are.same({ 0, '3' }, { status, text })
  end)

  it('loads into a fresh model and optimizer, which then take the same step', function()
    local model, opt, fresh_model, fresh_opt = run_pair()
    local path = dir .. '/resume.safetensors'
    checkpoint.save(path, model, opt, { step = 1, options = {} })
    local run = checkpoint.load(path)
    assert.are.equal(1, run.step)
    assert.is_nil(run.heldout)
    fresh_model:load_state_dict(run.model)
    fresh_opt:load_state_dict(run.optim)
    local task = copy_task()
    for _, m in ipairs({ { model, opt }, { fresh_model, fresh_opt } }) do
      m[1]:zeroGradParameters()
      local xs, ys = task:batch(2)
      m[1]:loss(xs, ys, true)
      m[2]:step()
    end
    for name, p in model:named_parameters() do
      assert.are.same(p:totable(), fresh_model:state_dict()[name]:totable(), name)
    end
  end)

  it('refuses a safetensors file that is not a checkpoint, naming it', function()
    local path = dir .. '/plain.safetensors'
    fused.save(path, { weight = fused.zeros({ 2 }, F64) })
    helper.assert_error(function() checkpoint.load(path) end,
                        'checkpoint.load: ' .. path .. " is not a training checkpoint of format "
                        .. "'fused-train/2' (format 'nil')")
  end)

  it('warns when a save fails; the last one of a run goes to a temporary file instead', function()
    local model, opt = run_pair()
    local path = dir .. '/missing/ck.safetensors'
    local out = helper.sink()
    assert.is_nil(checkpoint.save_or_warn(path, model, opt, { step = 3, options = {} }, out, false))
    assert.are.equal("warning: step 3: checkpoint not saved: save: cannot write '" .. path
                     .. "': No such file or directory; training goes on\n", out.text())
    out = helper.sink()
    local fallback = checkpoint.save_or_warn(path, model, opt, { step = 4, options = {} }, out, true)
    assert.is_truthy(out.text():find('; saved to ' .. fallback .. ' instead\n', 1, true), out.text())
    assert.are.equal(4, checkpoint.load(fallback).step)
    os.remove(fallback)
  end)

  it('names the Ctrl-C checkpoint in full, in the current directory', function()
    local cwd = io.popen('pwd'):read('*l')
    assert.are.equal(cwd .. '/interrupted.safetensors', checkpoint.interrupted_path())
  end)
end)
