-- fused/help.lua, the REPL's help(x) and ?x: an entry for every public name, found by value or by
-- name. The names are enumerated from fused, its Tensor class and its modules (nn's and optim's
-- folders), so a name added without an entry fails here.
local helper = require 'spec.helper'
local fused = helper.fused
local help = require 'fused.help'

-- The .lua files of lua/fused/<folder>, without '.lua'.
local function folder_names(folder)
  local names, ls = {}, assert(io.popen("ls 'lua/fused/" .. folder .. "'"))
  for file in ls:lines() do names[#names + 1] = file:match('^([%w_]+)%.lua$') end
  ls:close()
  assert.is_true(#names > 3, 'no files in lua/fused/' .. folder)
  return names
end

-- Files of nn and optim that no user calls: the folder's loader and helpers of its modules.
local INTERNAL = { ['nn.init'] = true, ['nn.activation'] = true, ['nn.gated_layer'] = true, ['nn.linear_layer'] = true,
                   ['nn.recurrent_args'] = true, ['nn.cell_params'] = true, ['optim.init'] = true,
                   ['nn.class_rows'] = true, ['nn.softmax_layer'] = true, ['nn.compute'] = true,
                   ['nn.inputs'] = true,
                   ['nn.calls'] = true, ['nn.gradients'] = true, ['nn.tree'] = true }

describe('help entries', function()
  it('cover every name of fused, the lazily loaded modules too', function()
    local missing = {}
    local names = { 'functional', 'gradcheck', 'sparse', 'distributed', 'ext', 'cell' }
    for name in pairs(fused) do names[#names + 1] = name end
    for _, name in ipairs(names) do
      if not help.entries['fused.' .. name] then missing[#missing + 1] = 'fused.' .. name end
    end
    table.sort(missing)
    assert.are.same({}, missing)
  end)

  it("cover every function of fused's other modules", function()
    local missing = {}
    for _, module in ipairs({ 'cuda', 'sparse', 'distributed', 'ext', 'cell', 'debug', 'functional' }) do
      for name, v in pairs(fused[module]) do
        local full = 'fused.' .. module .. '.' .. name
        if type(v) == 'function' and not help.entries[full] then missing[#missing + 1] = full end
      end
    end
    table.sort(missing)
    assert.are.same({}, missing)
  end)

  it('cover every module of fused.nn and fused.optim', function()
    local missing = {}
    for _, folder in ipairs({ 'nn', 'optim' }) do
      for _, name in ipairs(folder_names(folder)) do
        if not INTERNAL[folder .. '.' .. name] and not help.entries['fused.' .. folder .. '.' .. name] then
          missing[#missing + 1] = 'fused.' .. folder .. '.' .. name
        end
      end
    end
    assert.are.same({}, missing)
  end)

  it('cover every tensor method that is not an op of fused', function()
    local missing = {}
    for name, v in pairs(fused.Tensor) do
      if type(v) == 'function' and not help.entries['fused.' .. name]
         and not help.entries['fused.Tensor.' .. name] then
        missing[#missing + 1] = 'fused.Tensor.' .. name
      end
    end
    table.sort(missing)
    assert.are.same({}, missing)
  end)

  it('name only what exists, each with its signature first', function()
    for name, text in pairs(help.entries) do
      local value = fused
      for part in name:gmatch('[^%.]+') do
        if part ~= 'fused' then value = value[part] end -- raises for a name fused lacks
      end
      assert.is_not_nil(value, name)
      local method = name:match('^fused%.Tensor%.(.+)$')
      local signature = method and 't:' .. method or name
      assert.are.equal(signature, text:sub(1, #signature), name .. ': ' .. text)
    end
  end)
end)

describe('help.text', function()
  local lstm = help.entries['fused.nn.LSTM']

  it('finds an entry by value, by its name, or by a bare or method name', function()
    local tanh = help.entries['fused.tanh']
    assert.are.equal(tanh, help.text(fused, fused.tanh, true))
    assert.are.equal(tanh, help.text(fused, 'tanh', true))
    assert.are.equal(tanh, help.text(fused, 'fused.tanh', true))
    assert.are.equal(tanh, help.text(fused, 't:tanh', true))
    assert.are.equal(lstm, help.text(fused, fused.nn.LSTM, true))
    assert.are.equal(lstm, help.text(fused, 'LSTM', true))
    assert.are.equal(help.entries['fused.optim.clip_grad_norm'], help.text(fused, 'clip_grad_norm', true))
    assert.are.equal(help.entries['fused.Tensor.view'], help.text(fused, 't:view', true))
    assert.are.equal(help.entries['fused.Tensor.view'], help.text(fused, fused.Tensor.view, true))
  end)

  it('finds the class of a module, an optimizer or a tensor', function()
    local linear = fused.nn.Linear(2, 3)
    assert.are.equal(help.entries['fused.nn.Linear'], help.text(fused, linear, true))
    local params, grads = linear:parameters()
    assert.are.equal(help.entries['fused.optim.Adam'], help.text(fused, fused.optim.Adam(params, grads), true))
    local tensor = help.text(fused, fused.zeros(2), true)
    assert.are.equal(help.entries['fused.Tensor'], tensor:sub(1, #help.entries['fused.Tensor']))
    assert.truthy(tensor:find(' view ', 1, true), tensor)
  end)

  it('lists the names of a module under its entry', function()
    local text = help.text(fused, fused.nn, true)
    assert.are.equal(help.entries['fused.nn'], text:sub(1, #help.entries['fused.nn']))
    for _, name in ipairs({ 'LSTM', 'Linear', 'Sequential' }) do
      assert.truthy(text:find(' ' .. name .. '[ \n]') or text:find(' ' .. name .. '$'), text)
    end
  end)

  it('says when there is no entry, and without an argument how to use it', function()
    assert.are.same({ nil, "help: no entry for 'nope'; help() says what has one" },
                    { help.text(fused, 'nope', true) })
    assert.are.same({ nil, 'help: no entry for this function; help() says what has one' },
                    { help.text(fused, print, true) })
    assert.are.same({ nil, 'help: got nil (a name not defined?); help() says what has an entry' },
                    { help.text(fused, nil, true) })
    assert.truthy(help.text(fused, nil, false):find('help(fused.tanh)', 1, true))
  end)
end)
