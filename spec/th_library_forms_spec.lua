-- The library's own Lua (lua/fused/ outside th/) runs the same inside `fused th` and outside
-- it: it never calls, as a method, a Tensor method whose meaning Torch7 mode changes (the forms
-- of lua/fused/th/torch/tensor.lua that fused also has, less those that keep fused's calls).
-- Read from the files, as spec/layers_spec.lua reads them.
local helper = require 'spec.helper'
local fused = require 'fused'
local th_tensor = require 'fused.th.torch.tensor'

local LUA = 'lua/fused/'

-- The names whose fused calls change meaning in Torch7 mode.
local function differing()
  assert(not th_tensor.installed(), 'Torch7 mode is installed in this process')
  local names = {}
  for name in pairs(th_tensor.forms) do
    if rawget(fused.Tensor, name) ~= nil and not th_tensor.extends[name] then names[#names + 1] = name end
  end
  table.sort(names)
  return names
end

-- Strings have a sub method too: s:sub(i, j) is taken for a string's where its first argument
-- is not a single name (t:sub(b)) or a method call's result (t:sub(u:mul(y))). A tensor's
-- t:sub(1) reads as a string's: write t - 1.
local function tensor_sub(args)
  return args:match('^%s*[%a_][%w_%.]*%s*%)') ~= nil or args:match('^[^,)]*:') ~= nil
end

-- 'path:line: :name(' for each call of a differing name in lines (path's, by default).
local function violations(path, names, lines)
  local found = {}
  if not lines then
    lines = {}
    for line in io.lines(LUA .. path) do lines[#lines + 1] = line end
  end
  for n, line in ipairs(lines) do
    local code = helper.code_only(line):gsub('function%s+[%w_%.]+:', 'function ') -- a definition
    for _, name in ipairs(names) do
      for args in code:gmatch(':' .. name .. '%((.*)') do
        if name ~= 'sub' or tensor_sub(args) then
          found[#found + 1] = string.format('%s%s:%d: :%s(', LUA, path, n, name)
        end
      end
    end
  end
  table.sort(found)
  return found
end

describe("the library's own Lua", function()
  it('calls no Tensor method whose meaning Torch7 mode changes', function()
    local names, found, files = differing(), {}, helper.lua_files()
    assert(#names >= 15, 'only ' .. #names .. ' differing names: ' .. table.concat(names, ' '))
    assert(#files > 100, 'read only ' .. #files .. ' files')
    for _, path in ipairs(files) do
      if not path:match('^th/') then
        for _, v in ipairs(violations(path, names)) do found[#found + 1] = v end
      end
    end
    assert.are.equal(0, #found, "calls that mean another thing inside `fused th` (write fused.add(a, b), a + b, "
                     .. 'a:add_(b), ...):\n' .. table.concat(found, '\n'))
  end)

  it('is read with the names the forms change', function()
    local names = table.concat(differing(), ' ')
    for _, name in ipairs({ 'add', 'mul', 'div', 'exp', 'tanh', 'sigmoid', 'clamp', 'addmm', 'topk', 'sub', 'type' }) do
      assert.truthy((' ' .. names .. ' '):find(' ' .. name .. ' ', 1, true), name .. ' is not in: ' .. names)
    end
    assert.falsy((' ' .. names .. ' '):find(' sum ', 1, true))
  end)

  it('catch such a call, and not a string method or a comment', function()
    local code = { 'local y = x:add(b):tanh()', 'function Sequential:add(module)', 'local s = name:sub(1, 3) -- x:exp()',
                   'local d = t:sub(u:mul(e))', "local msg = 'x:div(2)'", 'return a:sub(below)' }
    assert.are.same({ LUA .. 'nn/X.lua:1: :add(', LUA .. 'nn/X.lua:1: :tanh(', LUA .. 'nn/X.lua:4: :mul(',
                      LUA .. 'nn/X.lua:4: :sub(', LUA .. 'nn/X.lua:6: :sub(' },
                    violations('nn/X.lua', { 'add', 'mul', 'sub', 'tanh', 'exp', 'div' }, code))
  end)
end)
