-- Torch7's torch package inside `fused th` (lua/fused/th/torch.lua and th/torch/*): constructors
-- and type strings, the maths as functions, random numbers, Timer, CmdLine, paths, cutorch.
local fused = require 'fused'
local th = require 'fused.th'

local function run_th(env, script, ...)
  local path = os.tmpname()
  local f = assert(io.open(path, 'w')); f:write(script); f:close()
  local args = table.concat({ ... }, ' ')
  local p = io.popen(env .. ' LUA_PATH="lua/?.lua;lua/?/init.lua;;" bin/fused th ' .. path .. ' ' .. args .. ' 2>&1; echo "rc=$?"')
  local out = p:read('*a'); p:close()
  os.remove(path)
  return out
end

describe('the torch package', function()
  local torch
  setup(function() th.install(); torch = require 'torch' end)
  teardown(function() th.uninstall() end)

  it('makes DoubleTensors by default, as Torch7, until setdefaulttensortype', function()
    assert.are.equal('torch.DoubleTensor', torch.Tensor(2, 3):type())
    assert.are.same({ 2, 3 }, torch.Tensor(2, 3):shape())
    assert.are.equal('torch.DoubleTensor', torch.getdefaulttensortype())
    torch.setdefaulttensortype('torch.FloatTensor')
    assert.are.equal('torch.FloatTensor', torch.Tensor(1):type())
    assert.are.equal('float32', torch.randn(2).dtype)
    torch.setdefaulttensortype('torch.DoubleTensor')
    assert.has_error(function() torch.setdefaulttensortype('torch.IntTensor') end)
  end)

  it('constructs each class from sizes, a size, a table or nothing', function()
    assert.are.equal('torch.FloatTensor', torch.FloatTensor(2):type())
    assert.are.same({ 1, 3, 2 }, torch.LongTensor({ 1, 3, 2 }):totable())
    assert.are.same({ 0 }, torch.DoubleTensor():shape())
    assert.are.same({ 2, 3 }, torch.Tensor(torch.Tensor(2, 3):size()):shape())
    assert.are.same({ 255, 0 }, torch.ByteTensor({ 255, 0 }):totable())
    assert.has_error(function() torch.ByteTensor({ 256 }) end, 'torch.ByteTensor: expected whole numbers in 0..255, got 256')
    assert.has_error(function() torch.CharTensor({ -129 }) end)
    assert.are.same({ -5 }, torch.IntTensor({ -5 }):totable())
  end)

  it('isTensor, type, typename, isTypeOf, pointer', function()
    local x = torch.Tensor(2)
    assert.is_true(torch.isTensor(x)); assert.is_false(torch.isTensor({}))
    assert.are.equal('torch.DoubleTensor', torch.type(x)); assert.are.equal('table', torch.type({}))
    assert.are.equal('torch.DoubleTensor', torch.typename(x))
    assert.is_true(torch.isTypeOf(x, 'torch.DoubleTensor'))
    assert.are.equal(torch.pointer(x), torch.pointer(x:view(2)))
  end)

  it('range includes both ends; the maths as functions, result first or new', function()
    assert.are.same({ 1, 2, 3, 4 }, torch.range(1, 4):totable())
    assert.are.same({ 0, 0.5, 1 }, torch.range(0, 1, 0.5):totable())
    local a, b = torch.Tensor({ 1, 2 }), torch.Tensor({ 3, 5 })
    assert.are.same({ 4, 7 }, torch.add(a, b):totable())
    assert.are.same({ 1, 2 }, a:totable())
    local z = torch.Tensor()
    torch.add(z, a, 2, b)
    assert.are.same({ 7, 12 }, z:totable())
    assert.are.same({ 3, 10 }, torch.cmul(a, b):totable())
    assert.are.same({ { 1, 2 } }, torch.cat(a:view(1, 2), torch.Tensor(1, 0)):totable())
    assert.are.same({ 1, 2, 3, 5 }, torch.cat(a, b):totable())
    assert.are.equal(13, torch.dot(a, b))
    local e = torch.exp(torch.Tensor({ 0 }))
    assert.are.same({ 1 }, e:totable())
    assert.are.same({ { 13 } }, torch.mm(a:view(1, 2), b:view(2, 1)):totable())
    assert.are.equal(3, torch.sum(a))
  end)

  it('manualSeed makes the draws repeat; randperm and multinomial', function()
    torch.manualSeed(7)
    local p1, u1 = torch.randperm(6), torch.uniform()
    torch.manualSeed(7)
    local p2, u2 = torch.randperm(6), torch.uniform()
    assert.are.same(p1:totable(), p2:totable()); assert.are.equal(u1, u2)
    local seen = {}
    for _, v in ipairs(p1:totable()) do seen[v] = true end
    for i = 1, 6 do assert.is_true(seen[i]) end
    local draws = torch.multinomial(torch.Tensor({ 0, 1, 0, 3 }), 2)
    local d = draws:totable(); table.sort(d)
    assert.are.same({ 2, 4 }, d) -- without replacement: each positive weight once
    local many = torch.multinomial(torch.Tensor({ 0, 0, 1 }), 5, true)
    assert.are.same({ 3, 3, 3, 3, 3 }, many:totable())
    assert.has_error(function() torch.multinomial(torch.Tensor({ 0, 1 }), 2) end)
    local r = torch.random(3)
    assert.is_true(r >= 1 and r <= 3 and r == math.floor(r))
  end)

  it('Timer counts while running, not while stopped', function()
    local t = torch.Timer()
    local x = 0
    for i = 1, 1e6 do x = x + i end
    local a = t:time().real
    assert.is_true(a > 0)
    t:stop()
    local b = t:time().real
    for i = 1, 1e6 do x = x + i end
    assert.are.equal(b, t:time().real)
    t:reset()
    assert.is_true(t:time().real < b + 1)
  end)

  it('CmdLine parses options of the defaults\' types, flips a boolean, names a run', function()
    local cmd = torch.CmdLine()
    cmd:text('Train')
    cmd:option('-lr', 0.1, 'learning rate')
    cmd:option('-name', 'm', 'name')
    cmd:option('-gpu', false, 'use the GPU')
    local opt = cmd:parse({ '-lr', '0.5', '-gpu' })
    assert.are.same({ lr = 0.5, name = 'm', gpu = true }, opt)
    assert.are.equal('run,gpu=t,lr=0.5', cmd:string('run', opt, {}))
    assert.has_error(function() cmd:option('-bad', nil) end)
  end)

  it('paths: dirname, basename, concat, filep, dirp, mkdir, dir', function()
    local paths = require 'paths'
    assert.are.equal('a/b', paths.dirname('a/b/c.lua'))
    assert.are.equal('c', paths.basename('a/b/c.lua', 'lua'))
    assert.are.equal('c.lua', paths.basename('a/b/c.lua'))
    assert.are.equal('a/b/c', paths.concat('a', 'b/', 'c'))
    assert.are.equal('/x', paths.concat('a', '/x'))
    assert.is_true(paths.filep('spec/th_torch_spec.lua')); assert.is_false(paths.filep('spec'))
    assert.is_true(paths.dirp('spec')); assert.is_false(paths.dirp('spec/th_torch_spec.lua'))
    local dir = os.tmpname(); os.remove(dir)
    assert.is_true(paths.mkdir(dir)); assert.is_true(paths.dirp(dir))
    assert.are.same({ '.', '..' }, paths.dir(dir))
    assert.is_true(paths.rmdir(dir))
    assert.is_truthy(paths.thisfile():match('th_torch_spec%.lua$'))
  end)

  it("cutorch: fused's CUDA device, or the emulator (specs run with FUSED_CUDA_EMULATOR=1)", function()
    if not (fused.cuda.is_available() or fused.cuda.is_emulated()) then
      local ok, err = pcall(require, 'cutorch')
      assert.is_false(ok)
      assert.truthy(tostring(err):find('cutorch: no CUDA device', 1, true))
      return
    end
    local cutorch = require 'cutorch'
    assert.are.equal(1, cutorch.getDeviceCount())
    local x = torch.Tensor({ 1, 2 }):float():cuda()
    assert.are.equal('torch.CudaTensor', x:type())
    x:mul(2)
    assert.are.same({ 2, 4 }, x:float():totable())
    assert.are.equal('torch.FloatTensor', x:type('torch.FloatTensor'):type())
  end)
end)

describe('fused th', function()
  it('runs a script with the torch global, its arguments and CmdLine', function()
    local out = run_th('', [[
local cmd = torch.CmdLine()
cmd:option('-n', 1, 'count')
local opt = cmd:parse(arg)
local x = torch.Tensor({1, 2}); x:mul(opt.n)
print(x:type(), x[2])]], '-n', '3')
    assert.are.equal('torch.DoubleTensor\t6\nrc=0\n', out)
  end)

  it('exits 1 with the usage on a bad option', function()
    local out = run_th('', "local cmd = torch.CmdLine(); cmd:option('-n', 1, 'count'); cmd:parse(arg)", '-m')
    assert.truthy(out:find('unknown option -m', 1, true) or out:find('invalid argument: -m', 1, true))
    assert.truthy(out:find('rc=1', 1, true))
  end)

  it('with no script starts the REPL in Torch7 mode', function()
    local p = io.popen([[printf 'x = torch.Tensor({1, 2})\nx:add(1)\nprint(x:type(), x[2])\n' | ]]
                       .. [[FUSED_NO_READLINE=1 LUA_PATH="lua/?.lua;lua/?/init.lua;;" bin/fused th 2>&1]])
    local out = p:read('*a'); p:close()
    assert.truthy(out:find('torch.DoubleTensor\t3', 1, true), out)
  end)

  it('gives a clear error for require cutorch without a device', function()
    local out = run_th('FUSED_NO_CUDA=1', "local ok, e = pcall(require, 'cutorch'); print(ok, e)")
    assert.truthy(out:find('false\tcutorch: no CUDA device: ', 1, true), out)
  end)
end)
