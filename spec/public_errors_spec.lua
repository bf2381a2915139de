-- Every public function, found at run time (fused.*, the Tensor methods, the fused.nn modules'
-- constructors, forward and backward, the fused.optim constructors), called with a bad argument:
-- the error must name the function as the user called it (mean, not sum), name the argument,
-- and be raised at the caller's line (here), not at a line inside lua/fused/. A function added
-- later is probed too; where the generic probe is valid input for it, PROBES says what is not.
local helper = require 'spec.helper'
local fused = helper.fused

local HERE = debug.getinfo(1, 'S').short_src
local BAD = 'bad' -- a string where a tensor, a number, a shape or a list goes

-- What the message must hold to name the argument where it is not "argument" (an option).
local ARGUMENT_TEXT = { RNN = "option 'cell'", RNNCell = "option 'cell'" }

-- Checks that f() raises at this file, naming name and the argument (arg: a text the message
-- must hold, default "argument").
local function check(label, name, f, arg)
  local ok, e = pcall(f)
  assert(not ok, label .. ' accepted a bad argument: give it a probe in PROBES '
         .. '(spec/public_errors_spec.lua) if the generic one is valid input')
  e = tostring(e)
  local at = e:match('^(.-):%d+: ')
  assert(at == HERE, string.format('%s raised at %s, not at its caller (error(msg, level) must '
                                   .. 'blame the caller): %s', label, tostring(at), e))
  local escaped = name:gsub('[%p]', '%%%0')
  local body = ' ' .. e:gsub('^.-:%d+: ', '')
  assert(body:find('[%s%.:]' .. escaped .. ':'),
         string.format("%s: the message does not name '%s': %s", label, name, e))
  arg = arg or 'argument'
  assert(e:find(arg, 1, true), string.format("%s: the message does not name the argument ('%s'): %s",
                                             label, arg, e))
end

local function sorted_functions(t)
  local names = {}
  for k, v in pairs(t) do
    if type(k) == 'string' and type(v) == 'function' then names[#names + 1] = k end
  end
  table.sort(names)
  return names
end

-- The .lua files of a lazy folder (fused.nn, fused.optim), as the REPL lists them.
local function folder(prefix)
  local dir = package.searchpath(prefix, package.path):match('^(.*)/init%.lua$')
  local names, ls = {}, io.popen("ls '" .. dir .. "'")
  for file in ls:lines() do
    local name = file:match('^([%a_][%w_]*)%.lua$')
    if name and name ~= 'init' then names[#names + 1] = name end
  end
  ls:close()
  return names
end

-- The probes where the generic one does not apply: a function (f, the public function) that
-- calls it badly, with the text the message must hold; or false, with why there is none.
local t = fused.zeros({ 2, 3 })
local PROBES = {
  -- fused.*
  get_num_threads = false, -- takes no argument
  is_tensor = false,       -- any value is its argument: true or false
  config = false,          -- no argument: returns the build's settings
  version = false,
  load = { function(f) f({}) end },
  load_npy = { function(f) f({}) end },
  save = { function(f) f(t, {}) end },
  save_npy = { function(f) f({}, t) end },
  Size = { function(f) f({ BAD }) end },
}
-- Tensor methods without arguments: probed called on something that is not a tensor.
local NO_ARGUMENTS = {}
for name in ([[clone contiguous cpu cuda dim double float is_contiguous numel shape t totable
               zero zero_ item stride sum_squares bool long nDimension nElement nonzero bfloat16
               half]]):gmatch('%S+') do
  NO_ARGUMENTS[name] = true
end

-- Torch7's names for in-place methods and repeat: their errors name the function they are.
local ALIASES = { copy = 'copy_', fill = 'fill_', uniform = 'uniform_', normal = 'normal_',
                  repeatTensor = 'repeat' }

local probed, failed = 0, {}
local function probe(label, name, f, arg)
  probed = probed + 1
  it(label, function()
    local ok, e = pcall(check, label, name, f, arg)
    if not ok then failed[#failed + 1] = label end
    assert(ok, e)
  end)
end

describe('every fused.* function', function()
  for _, name in ipairs(sorted_functions(fused)) do
    local p = PROBES[name]
    if p ~= false then
      local f = fused[name]
      probe('fused.' .. name, ALIASES[name] or name, p and function() p[1](f) end or function() f(BAD) end, p and p[2])
    end
  end
end)

describe('every Tensor method', function()
  for _, name in ipairs(sorted_functions(fused.Tensor)) do
    local method = fused.Tensor[name]
    if NO_ARGUMENTS[name] then
      probe('Tensor:' .. name, name, function() method(BAD) end, 'to call it on')
    else
      probe('Tensor:' .. name, ALIASES[name] or name, function()
        local x = fused.zeros({ 2, 3 })
        x[name](x, BAD)
      end)
    end
  end
end)

-- A working instance of each fused.nn module (its constructor's arguments), to probe forward
-- and backward; a module missing here is probed with no arguments.
local NN_ARGS = {
  Linear = { 3, 2 }, Embedding = { 10, 3 }, LayerNorm = { 3 }, Dropout = { 0.5 },
  GraphConv = { 3, 2 }, LSTM = { 3, 2 }, GRU = { 3, 2 }, LLTM = { 3, 2 }, LSTMCell = { 3, 2 },
  GRUCell = { 3, 2 }, LLTMCell = { 3, 2 }, LLTMCellComposed = { 3, 2 },
  Recurrent = { function() return fused.nn.LLTMCell(3, 2) end },
  Sequential = { function() return fused.nn.Linear(3, 2) end },
}
-- The shapes of good inputs to each, so that backward has a forward to go back through.
local BATCH, STATE, SEQUENCE = { 4, 3 }, { 4, 2 }, { 5, 4, 3 }
local NN_INPUT = {
  Linear = { BATCH }, LayerNorm = { BATCH }, Dropout = { BATCH }, ReLU = { BATCH },
  Sigmoid = { BATCH }, Tanh = { BATCH }, Sequential = { BATCH }, GRUCell = { BATCH, STATE },
  LSTMCell = { BATCH, STATE, STATE }, LLTMCell = { BATCH, STATE, STATE },
  LLTMCellComposed = { BATCH, STATE, STATE }, LSTM = { SEQUENCE }, GRU = { SEQUENCE },
  LLTM = { SEQUENCE }, Recurrent = { SEQUENCE },
}
-- Containers pass a bad input on: the error names the module that checks it.
local NN_NAMED = { Sequential = 'Linear' }
-- Not modules a user builds: the base classes and the recurrent modules' shared argument checks.
local NN_BASES = { Module = true, RNNBase = true, RNNCellBase = true, recurrent_args = true }

describe('every fused.nn module: constructor, forward, backward', function()
  for _, name in ipairs(folder('fused.nn')) do
    local class = fused.nn[name]
    if type(class) == 'table' and class.forward and not NN_BASES[name] then
      if name ~= 'Sequential' then -- which takes any modules
        probe('nn.' .. name .. '()', name, function() class(BAD, BAD) end, ARGUMENT_TEXT[name])
      end
      local args = {}
      for i, a in ipairs(NN_ARGS[name] or {}) do args[i] = type(a) == 'function' and a() or a end
      local ok, m = pcall(class, unpack(args))
      if ok then
        local named = NN_NAMED[name] or name
        probe('nn.' .. name .. ':forward', named .. ':forward', function() m:forward(BAD) end)
        local shapes = NN_INPUT[name]
        if shapes then
          probe('nn.' .. name .. ':backward', named .. ':backward', function()
            local inputs = {}
            for i, shape in ipairs(shapes) do inputs[i] = fused.zeros(shape) end
            m:forward(unpack(inputs))
            m:backward(BAD)
          end)
        end
      end
    end
  end
end)

describe('every fused.optim optimizer and function', function()
  for _, name in ipairs(folder('fused.optim')) do
    if name ~= 'Optimizer' then
      local f = fused.optim[name]
      probe('optim.' .. name, name, function() f(BAD) end)
    end
  end
end)

describe('the probe', function()
  it('reached every kind of public function', function()
    assert(probed > 200, 'probed only ' .. probed)
  end)
end)
