-- Torch7's class registry (lua/fused/th/class.lua) and the `fused th` launcher.
local class = require 'fused.th.class'
local fused = require('spec.helper').fused

describe('torch.class', function()
  it('makes a class whose constructor runs __init, with a parent found by name', function()
    local pkg = {}
    local Base = class.class('thspec.Base', pkg)
    function Base:__init(a) self.a = a end
    function Base:get() return self.a end
    local Child, parent = class.class('thspec.Child', 'thspec.Base', pkg)
    function Child:get() return 'child ' .. self.a end
    assert.equals(Base, parent)
    assert.equals(3, pkg.Base(3):get())
    assert.equals('child 4', pkg.Child(4):get())
    assert.equals('thspec.Child', class.typename(pkg.Child(1)))
    assert.is_true(class.is_type_of(pkg.Child(1), 'thspec.Base'))
    assert.is_false(class.is_type_of(pkg.Base(1), 'thspec.Child'))
    local obj = class.factory('thspec.Child')()
    assert.is_nil(obj.a)
    assert.equals('child 5', (function() obj.a = 5 return obj:get() end)())
  end)

  it('makes a subclass of a fused module through its extend', function()
    class.register('thspec.Module', require('fused.nn.Module'))
    local pkg = {}
    local Double = class.class('thspec.Double', 'thspec.Module', pkg)
    function Double:updateOutput(x) self.output = x * 2 return self.output end
    local y = pkg.Double():forward(fused.tensor({ 1, 2 }))
    assert.same({ 2, 4 }, y:totable())
  end)

  it('refuses an unknown parent and a name defined twice, naming torch.class', function()
    assert.has_error(function() class.class('thspec.Orphan', 'thspec.Nothing', {}) end,
      "torch.class: argument 'parent' names no known class: 'thspec.Nothing'")
    class.class('thspec.Once', {})
    assert.has_error(function() class.class('thspec.Once', {}) end,
      "torch.class: argument 'name': class 'thspec.Once' is already defined")
  end)
end)

describe('fused th', function()
  it("runs a script with Torch7's require 'torch' and torch.class", function()
    local script = os.tmpname()
    local f = assert(io.open(script, 'w'))
    f:write("require 'torch'\nlocal C = torch.class('nn.ThSpecC')\nfunction C:__init(v) self.v = v end\n",
            "print(torch.typename(nn.ThSpecC(1)), nn.ThSpecC(7).v, select('#', ...), ...)\n")
    f:close()
    local p = io.popen('FUSED_NO_READLINE=1 bin/fused th ' .. script .. ' a b 2>&1')
    local out = p:read('*a')
    p:close()
    os.remove(script)
    assert.equals('nn.ThSpecC\t7\t2\ta\tb\n', out)
  end)
end)
