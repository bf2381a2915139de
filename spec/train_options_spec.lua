-- fused.train.options: the declarative parser of training scripts; every malformed argument
-- is a usage error naming the option and what was expected.
require 'spec.helper'
local options = require 'fused.train.options'

local dir = os.tmpname()
os.remove(dir)

local cmd = options.new('luajit demo.lua [options]', 'A demo; options:', {
  { 'steps', 10, 'int', 'training steps', min = 1, max = 100 },
  { 'lr', 0.1, 'number', 'learning rate', above = 0 },
  { 'clip', 1, 'number', 'clip', min = 0 },
  { 'optim', 'adam', { 'adam', 'sgd' }, 'optimizer' },
  { 'data', false, 'string', 'a file' },
  { 'log', false, 'output', 'a CSV file' },
  { 'keep', 0, 'number', 'a fraction', min = 0, below = 1 },
})

-- The message of the usage error that parsing argv raises.
local function usage_message(argv)
  local ok, err = pcall(cmd.parse, cmd, argv)
  assert(not ok, 'expected a usage error for ' .. table.concat(argv, ' '))
  assert(options.is_usage_error(err), tostring(err))
  return err.message
end

describe('train.options', function()
  it('fills in the defaults and converts what is given, in both spellings', function()
    local opts, given = cmd:parse({ '--steps', '5', '--lr=0.5', '--optim', 'sgd' })
    assert.are.same({ steps = 5, lr = 0.5, clip = 1, optim = 'sgd', data = false, log = false, keep = 0 },
                    opts)
    assert.are.same({ steps = true, lr = true, optim = true }, given)
    local _, help = cmd:parse({ '--steps', '5', '--help', '--bogus' })
    assert.are.same({ help = true }, help)
  end)

  it('lists every option with its kind and default', function()
    local text = cmd:usage()
    assert.is_truthy(text:find('usage: luajit demo.lua [options]', 1, true))
    assert.is_truthy(text:find('--steps         INT                    training steps  (default 10)', 1, true))
    assert.is_truthy(text:find('--optim         adam|sgd', 1, true))
    assert.is_truthy(text:find('--log           FILE                   a CSV file\n', 1, true))
    assert.is_truthy(text:find('--help', 1, true))
  end)

  it('names the option and what was expected in every usage error', function()
    for _, case in ipairs({
      { { '--bogus', '1' }, "unknown option '--bogus'" },
      { { '--steps' }, "option '--steps' needs a value" },
      { { '--steps', 'many' }, "option '--steps' expected an integer, got 'many'" },
      { { '--steps', '2.5' }, "option '--steps' expected an integer, got '2.5'" },
      { { '--lr', 'nan' }, "option '--lr' expected a finite number, got 'nan'" },
      { { '--lr', 'inf' }, "option '--lr' expected a finite number, got 'inf'" },
      { { '--lr', '1e999' }, "option '--lr' expected a finite number, got '1e999'" },
      { { '--clip', '-inf' }, "option '--clip' expected a finite number, got '-inf'" },
      { { '--steps', 'inf' }, "option '--steps' expected an integer, got 'inf'" },
      { { '--lr', '-1' }, "option '--lr' expected > 0, got -1" },
      { { '--lr', '0' }, "option '--lr' expected > 0, got 0" },
      { { '--clip', '-0.5' }, "option '--clip' expected >= 0, got -0.5" },
      { { '--steps', '101' }, "option '--steps' expected 1 to 100, got 101" },
      { { '--keep', '1' }, "option '--keep' expected < 1, got 1" },
      { { '--optim', 'lbfgs' }, "option '--optim' expected one of adam, sgd, got 'lbfgs'" },
      { { '--optim=lbfgs' }, "option '--optim' expected one of adam, sgd, got 'lbfgs'" },
      { { 'stray' }, "unexpected argument 'stray' (options start with --)" },
      { { '--log', '' }, "option '--log' expected a file name, got ''" },
      { { '--log', dir .. '/log.csv' }, '--log ' .. dir .. '/log.csv: cannot write there (' .. dir
                                        .. ': No such file or directory)' },
    }) do
      assert.are.equal(case[2], usage_message(case[1]))
    end
  end)

  -- Appending a log to a FIFO blocked the run for good; a checkpoint into a device was saved
  -- elsewhere after the training.
  it('refuses an output that is a FIFO, a device or a directory, before any work', function()
    local folder = os.tmpname()
    os.remove(folder)
    assert(os.execute('mkdir ' .. folder .. ' && mkfifo ' .. folder .. '/fifo') == 0)
    assert.are.equal('--log ' .. folder .. '/fifo: not a regular file (a FIFO)',
                     usage_message({ '--log', folder .. '/fifo' }))
    assert.are.equal('--log /dev/null: not a regular file (a character device)',
                     usage_message({ '--log', '/dev/null' }))
    assert.are.equal('--log ' .. folder .. ': not a regular file (a directory)',
                     usage_message({ '--log', folder }))
    local opts = cmd:parse({ '--log', folder .. '/new.csv' })
    assert.are.equal(folder .. '/new.csv', opts.log)
    os.execute('rm -r ' .. folder)
  end)

  it('takes saved options not given and not excepted, and lists those that changed something', function()
    local opts, given = cmd:parse({ '--lr', '0.5' })
    local saved = { steps = 20, lr = 0.1, clip = 2, optim = 'adam', data = 'a.txt', log = false }
    assert.are.same({ '--steps 20', '--data a.txt' }, cmd:take(opts, given, saved, { clip = true }))
    assert.are.same({ steps = 20, lr = 0.5, clip = 1, optim = 'adam', data = 'a.txt', log = false, keep = 0 },
                    opts)
    local ok, err = pcall(cmd.take, cmd, opts, given, { log = dir .. '/log.csv' }, {})
    assert.is_false(ok)
    assert.are.equal('--log ' .. dir .. '/log.csv: cannot write there (' .. dir .. ': No such file or directory)',
                     err.message)
  end)

  it('checks every saved option as a given one, taken or not: name, kind and range', function()
    local function take_error(saved, except)
      local opts, given = cmd:parse({ '--lr', '0.5' })
      local ok, err = pcall(cmd.take, cmd, opts, given, saved, except or {})
      assert.is_false(ok)
      assert.is_true(options.is_usage_error(err), tostring(err))
      return err.message
    end
    for _, case in ipairs({
      { { gone = 1 }, "unknown option '--gone'" },
      { { steps = 5, [1] = 'x' }, "unknown option '--1'" },
      { { steps = 1 / 0 }, "option '--steps' expected an integer, got 'inf'" },
      { { steps = 1e300 }, "option '--steps' expected 1 to 100, got 1e+300" },
      { { lr = -1 }, "option '--lr' expected > 0, got -1" }, -- given on the command line, still checked
      { { clip = 'x' }, "option '--clip' expected a number, got x" },
      { { optim = 'lbfgs' }, "option '--optim' expected one of adam, sgd, got 'lbfgs'" },
      { { data = true }, "option '--data' expected a string, got true" },
    }) do
      assert.are.equal(case[2], take_error(case[1]))
      assert.are.equal(case[2], take_error(case[1], { steps = true, clip = true, optim = true, data = true }))
    end
    -- A saved output that is not taken is not written: only its kind is checked.
    local opts, given = cmd:parse({})
    assert.are.same({}, cmd:take(opts, given, { log = dir .. '/log.csv' }, { log = true }))
    assert.is_false(opts.log)
  end)

  it('tells a usage error from any other error', function()
    assert.is_false(options.is_usage_error('train.lua:1: attempt to index a nil value'))
    local ok, err = pcall(options.usage_error, '--%s: %d', 'x', 3)
    assert.is_false(ok)
    assert.is_true(options.is_usage_error(err))
    assert.are.equal('--x: 3', err.message)
  end)
end)
