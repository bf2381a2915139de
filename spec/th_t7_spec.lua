-- torch.save / torch.load / torch.serialize / torch.deserialize and torch.DiskFile /
-- torch.MemoryFile in Torch7's .t7 format
-- (lua/fused/th/t7/): public files Torch7 wrote, files made here byte by byte as torch7's
-- File.lua and generic/Tensor.c write them, round trips of every type, and corrupt input.
local ffi = require 'ffi'
local fused = require('spec.helper').fused
local torch = require 'fused.th.torch'
local class = require 'fused.th.class'
local read = require 'fused.th.t7.read'

local data = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'data/th/t7/'

-- Torch7's binary encoding, built by hand: 4-byte ints, 8-byte longs and doubles.
local function i32(v) return ffi.string(ffi.new('int32_t[1]', v), 4) end
local function i64(v) return ffi.string(ffi.new('int64_t[1]', v), 8) end
local function f64(v) return ffi.string(ffi.new('double[1]', v), 8) end
local function str(s) return i32(#s) .. s end
local function longs(list)
  local parts = {}
  for i, v in ipairs(list) do parts[i] = i64(v) end
  return table.concat(parts)
end
local NIL, NUMBER, STRING, TABLE, TORCH, BOOLEAN = i32(0), i32(1), i32(2), i32(3), i32(4), i32(5)
local function object(index, name) return TORCH .. i32(index) .. str('V 1') .. str(name) end
-- A tensor (object index) of sizes/strides at offset (from 1) in a storage (index + 1) of
-- the raw element bytes.
local function tensor_file(name, sizes, strides, offset, storage_name, n, raw)
  return object(1, name) .. i32(#sizes) .. longs(sizes) .. longs(strides) .. i64(offset)
    .. object(2, storage_name) .. i64(n) .. raw
end

local function write(path, bytes)
  local f = assert(io.open(path, 'wb'))
  f:write(bytes)
  f:close()
end

local function read_file(path)
  local f = assert(io.open(path, 'rb'))
  local s = f:read('*a')
  f:close()
  return s
end

-- The error torch.load gives for bytes: "torch.load: PATH: at byte N: why" (the why returned).
local function load_error(bytes)
  local path = os.tmpname()
  write(path, bytes)
  local ok, err = pcall(torch.load, path)
  os.remove(path)
  assert.is_false(ok, 'loaded')
  local prefix = 'torch.load: ' .. path .. ': at byte '
  assert.equals(prefix, err:sub(1, #prefix))
  -- Lua's own error texts would mean an error fused did not mean.
  for _, pattern in ipairs({ 'attempt to ', 'bad argument', 'stack overflow', '%.lua:%d+:' }) do
    assert.is_nil(err:find(pattern), err)
  end
  return err:match('^at byte %d+: (.*)$', #prefix - 7)
end

local function values(t) return t:contiguous():view(-1):totable() end

describe('torch.load of public files Torch7 wrote', function()
  it('reads tensors', function()
    local d = torch.load(data .. 'doubletensor.t7')
    assert.equals('float64', d.dtype)
    assert.same({ { 1, 2, 3 }, { 4, 5, 6.9 } }, d:totable())
    local f = torch.load(data .. 'floattensor.t7')
    assert.equals('float32', f.dtype)
    assert.same({ 2, 3, 4 }, f:shape())
    assert.is_true(math.abs(f:double():sum() - 12.97241666913) < 1e-5)
  end)

  it('reads tables, and shared and cyclic references as one table', function()
    assert.same({ hello = 123 }, torch.load(data .. 'hello=123.t7'))
    assert.same({ 'hello', 'world', 'third item', 123 }, torch.load(data .. 'list_table.t7'))
    assert.same({ 'hello', 'world', 'third item', 123, a = 'non number key' }, torch.load(data .. 'map_table2.t7'))
    local t = torch.load(data .. 'recursive_kv_table.t7')
    local k, v = next(t)
    assert.equals(t, k)
    assert.equals(t, v)
    assert.is_nil(next(t, k))
  end)

  it("reads torch.class objects through the class registry", function()
    local pkg = {}
    if not class.metatable('Blah') then class.class('Blah', pkg) end
    if not class.metatable('A') then class.class('A', pkg) end
    assert.equals('Blah', class.typename(torch.load(data .. 'custom_class.t7')))
    local a = torch.load(data .. 'recursive_class.t7')
    assert.equals('A', class.typename(a))
    assert.equals(a, a.a)
  end)

  it("reads nngraph's saved gModule (a = Identity, b = Identity, c = Linear(1, 2)(a), CAddTable{b, c})", function()
    require 'fused.th.nn'
    require 'fused.th.nngraph'
    -- The graph package's classes, which nngraph's graphs are made of (fields only).
    for _, name in ipairs({ 'graph.Graph', 'graph.Edge' }) do
      if not class.metatable(name) then class.class(name, {}) end
    end
    local g = torch.load(data .. 'gmodule_with_linear_identity.t7')
    assert.equals('nn.gModule', class.typename(g))
    local linears = {}
    for _, m in ipairs(g.modules) do
      if class.typename(m) == 'nn.Linear' then linears[#linears + 1] = m end
    end
    assert.equals(1, #linears)
    assert.same({ 2, 1 }, linears[1].weight:shape())
    assert.equals('float64', linears[1].weight.dtype)
  end)

  it("runs nngraph's saved gModule", function()
    local g = torch.load(data .. 'gmodule_with_linear_identity.t7')
    local linear
    for _, m in ipairs(g.modules) do
      if class.typename(m) == 'nn.Linear' then linear = m end
    end
    local a, b = fused.tensor({ 0.5 }, { dtype = 'float64' }), fused.tensor({ -2 }, { dtype = 'float64' })
    local want = {}
    for i = 1, 2 do want[i] = -2 + linear.weight[{ i, 1 }] * 0.5 + linear.bias[i] end
    assert.same(want, g:forward({ a, b }):totable())
  end)

  it('refuses a function (bytecode) and an unknown class, naming torch.load and the path', function()
    local ok, err = pcall(torch.load, data .. 'function_upvals.t7')
    assert.is_false(ok)
    assert.equals('torch.load: ' .. data .. 'function_upvals.t7: at byte 4: a Lua function (its bytecode): '
                  .. 'fused does not load code from files', err)
    ok, err = pcall(torch.load, data .. 'tds_vec.t7')
    assert.is_false(ok)
    assert.matches("^torch.load: .*tds_vec.t7: at byte %d+: unknown class 'tds.Vec': no torch.class of that name",
                   err)
  end)
end)

describe('torch.load of files made by hand as Torch7 writes them', function()
  it("reads Byte, Char, Short and Int tensors as int64, every value exact", function()
    for _, case in ipairs({ { 'Byte', 'uint8_t', { 0, 255, 7, 128 } }, { 'Char', 'int8_t', { -128, 127, 0, -1 } },
                            { 'Short', 'int16_t', { -32768, 32767, 5, -5 } },
                            { 'Int', 'int32_t', { -2 ^ 31, 2 ^ 31 - 1, 0, 42 } } }) do
      local name, ctype, list = case[1], case[2], case[3]
      local raw = ffi.string(ffi.new(ctype .. '[4]', list), ffi.sizeof(ctype) * 4)
      local t = torch.deserialize(tensor_file('torch.' .. name .. 'Tensor', { 2, 2 }, { 2, 1 }, 1,
                                              'torch.' .. name .. 'Storage', 4, raw))
      assert.equals('int64', t.dtype)
      assert.same({ { list[1], list[2] }, { list[3], list[4] } }, t:totable())
    end
  end)

  it('reads Long, Float, Double and Half tensors in their own dtypes', function()
    local t = torch.deserialize(tensor_file('torch.LongTensor', { 3 }, { 1 }, 1, 'torch.LongStorage', 3,
                                            longs({ 2 ^ 52 + 1, -7, 0 })))
    assert.equals('int64', t.dtype)
    assert.same({ 2 ^ 52 + 1, -7, 0 }, t:totable())
    t = torch.deserialize(tensor_file('torch.FloatTensor', { 2 }, { 1 }, 1, 'torch.FloatStorage', 2,
                                      ffi.string(ffi.new('float[2]', { 0.5, -3.25 }), 8)))
    assert.equals('float32', t.dtype)
    assert.same({ 0.5, -3.25 }, t:totable())
    -- float16 bits: 0x3C00 is 1, 0xC000 is -2.
    t = torch.deserialize(tensor_file('torch.HalfTensor', { 2 }, { 1 }, 1, 'torch.HalfStorage', 2,
                                      ffi.string(ffi.new('uint16_t[2]', { 0x3C00, 0xC000 }), 4)))
    assert.equals('float16', t.dtype)
    assert.same({ 1, -2 }, t:float():totable())
    -- cutorch's classes load onto the CPU.
    t = torch.deserialize(tensor_file('torch.CudaTensor', { 1 }, { 1 }, 1, 'torch.CudaStorage', 1,
                                      ffi.string(ffi.new('float[1]', 1.5), 4)))
    assert.same({ 1.5 }, t:totable())
  end)

  it('keeps strides, the storage offset and storages shared between tensors', function()
    -- A 2x2 transposed view at offset 2 of a 5-element storage, then a 1-D view of the same
    -- storage (its object index 2 again).
    local storage = ffi.string(ffi.new('double[5]', { 10, 11, 12, 13, 14 }), 40)
    local bytes = TABLE .. i32(1) .. i32(2)
      .. NUMBER .. f64(1) .. TORCH .. i32(2) .. str('V 1') .. str('torch.DoubleTensor') .. i32(2)
      .. longs({ 2, 2 }) .. longs({ 1, 2 }) .. i64(2) .. object(3, 'torch.DoubleStorage') .. i64(5) .. storage
      .. NUMBER .. f64(2) .. TORCH .. i32(4) .. str('V 1') .. str('torch.DoubleTensor') .. i32(1)
      .. longs({ 5 }) .. longs({ 1 }) .. i64(1) .. TORCH .. i32(3)
    local t = torch.deserialize(bytes)
    assert.same({ { 11, 13 }, { 12, 14 } }, t[1]:totable())
    assert.same({ 10, 11, 12, 13, 14 }, t[2]:totable())
    t[2]:fill_(0)
    assert.same({ { 0, 0 }, { 0, 0 } }, t[1]:totable())
  end)

  it("reads Torch7's empty tensor (no dims, no storage) as an empty tensor", function()
    local t = torch.deserialize(object(1, 'torch.DoubleTensor') .. i32(0) .. i64(1) .. NIL)
    assert.equals('float64', t.dtype)
    assert.same({ 0 }, t:shape())
  end)

  it("reads files from before Torch7's class versions, and 'b32' files (4-byte longs)", function()
    local old = TORCH .. i32(1) .. str('torch.DoubleTensor') .. i32(1) .. longs({ 1 }) .. longs({ 1 }) .. i64(1)
      .. TORCH .. i32(2) .. str('torch.DoubleStorage') .. i64(1) .. f64(2.5)
    assert.same({ 2.5 }, torch.deserialize(old):totable())
    local b32 = object(1, 'torch.LongTensor') .. i32(1) .. i32(2) .. i32(1) .. i32(1)
      .. object(2, 'torch.LongStorage') .. i32(2) .. i32(-3) .. i32(9)
    assert.same({ -3, 9 }, torch.deserialize(b32, 'b32'):totable())
  end)

  it("reads Torch7's ascii format", function()
    local text = '4\n1\n3\nV 1\n18\ntorch.DoubleTensor\n2\n2 3\n3 1\n1\n4\n2\n3\nV 1\n19\ntorch.DoubleStorage\n'
      .. '6\n1 2 3 4 5 6.9000000000000004\n'
    assert.same({ { 1, 2, 3 }, { 4, 5, 6.9 } }, torch.deserialize(text, 'ascii'):totable())
    assert.same({ x = 'a b', [1] = true, [2] = -1.5 },
                torch.deserialize('3\n1\n3\n2\n1\nx\n2\n3\na b\n1\n1\n5\n1\n1\n2\n1\n-1.5\n', 'ascii'))
  end)
end)

-- Equal as saved values: tables by their contents (a cycle back to the top compares as such),
-- tensors by dtype, shape and values.
local function same(a, b, seen)
  seen = seen or {}
  if fused.is_tensor(a) then
    return fused.is_tensor(b) and a.dtype == b.dtype and table.concat(a:shape(), ',') == table.concat(b:shape(), ',')
      and same(a:numel() > 0 and values(a:double()) or {}, b:numel() > 0 and values(b:double()) or {})
  end
  if type(a) ~= 'table' then return a == b or (a ~= a and b ~= b) end
  if seen[a] then return seen[a] == b end
  seen[a] = b
  if type(b) ~= 'table' or class.typename(a) ~= class.typename(b) then return false end
  for k, v in pairs(a) do
    if type(k) ~= 'table' and not same(v, b[k], seen) then return false end
  end
  for k in pairs(b) do
    if type(k) ~= 'table' and a[k] == nil then return false end
  end
  return true
end

describe('torch.save then torch.load', function()
  local pkg = {}
  local Point = class.class('t7spec.Point', pkg)
  function Point:__init(x, y) self.x, self.y = x, y end
  function Point:norm() return math.sqrt(self.x ^ 2 + self.y ^ 2) end
  -- A class with its own read and write (Torch7 called them with the file and the version).
  local Packed = class.class('t7spec.Packed', pkg)
  Packed.__version = 3
  function Packed:write(f)
    f:writeInt(#self.list)
    for _, v in ipairs(self.list) do f:writeDouble(v) end
    f:writeObject(self.extra)
  end
  function Packed:read(f, version)
    self.version, self.list = version, {}
    for i = 1, f:readInt() do self.list[i] = f:readDouble() end
    self.extra = f:readObject()
  end

  local function sample()
    local x = fused.randn(4, 5, { dtype = 'float64' })
    local obj = {
      nothing = nil, n = 3.5, int = 2 ^ 53, tiny = 5e-324, neg_zero = -0.0, inf = math.huge, ninf = -math.huge,
      nan = 0 / 0, s = 'a\0b\255', empty_string = '', yes = true, no = false, list = { 1, 'two', { 3 } },
      x = x, row = x[2], column = x[{ {}, 3 }], xt = x:t(),
      f32 = fused.randn(3, 2), i64 = fused.tensor({ 1, -2, 2 ^ 62 }, { dtype = 'int64' }),
      f16 = fused.randn(5):half(), empty = fused.zeros(0, 3),
      -- version: what read sets, from the file's class version.
      point = pkg.Point(3, 4), packed = setmetatable({ list = { 1.5, -2 }, extra = { 'e' }, version = 3 },
                                                     class.metatable('t7spec.Packed')),
    }
    obj.self, obj.twice = obj, obj.list
    obj[obj.list] = 'a table as a key'
    return obj
  end

  for _, format in ipairs({ 'binary', 'ascii' }) do
    it('returns equal values for every type, in the ' .. format .. ' format', function()
      local obj = sample()
      local path = os.tmpname()
      torch.save(path, obj, format)
      local back = torch.load(path, format)
      os.remove(path)
      assert.is_true(same(obj, back))
      assert.equals(back, back.self)
      assert.equals(back.list, back.twice)
      assert.equals('a table as a key', back[back.list])
      assert.is_true(1 / back.neg_zero < 0)
      assert.equals(5, back.point:norm())
      assert.equals(3, back.packed.version)
      assert.same({ 1.5, -2 }, back.packed.list)
      assert.same({ 'e' }, back.packed.extra)
      -- Views of one tensor share its memory again.
      back.x[{ 2, 3 }] = 100
      assert.equals(100, back.row[3])
      assert.equals(100, back.column[2])
      assert.equals(100, back.xt[{ 3, 2 }])
    end)
  end

  it('reads files longer than its 64 KiB blocks, words and data across their ends, in both formats', function()
    local obj = { x = fused.randn(30000, { dtype = 'float64' }), s = string.rep('ab', 50000), n = 1 / 3 }
    for _, format in ipairs({ 'binary', 'ascii' }) do
      local path = os.tmpname()
      torch.save(path, obj, format)
      assert.is_true(#read_file(path) > 3 * 65536)
      assert.is_true(same(obj, torch.load(path, format)))
      os.remove(path)
    end
  end)

  it('writes a bool tensor as a ByteTensor (Torch7 had no bool) and a 0-d tensor as size 1', function()
    local back = torch.deserialize(torch.serialize({ fused.tensor({ true, false, true }), fused.tensor(2.5) }))
    assert.equals('int64', back[1].dtype)
    assert.same({ 1, 0, 1 }, back[1]:totable())
    assert.same({ 1 }, back[2]:shape())
    assert.equals(2.5, back[2][1])
    assert.matches('torch.ByteTensor', torch.serialize(fused.tensor({ true })), 1, true)
  end)

  it('writes a tensor alone in its storage as Torch7 does, and loads it as a plain tensor', function()
    local t = fused.tensor({ { 1, 2 }, { 3, 4 } }, { dtype = 'float64' })
    assert.equals(tensor_file('torch.DoubleTensor', { 2, 2 }, { 2, 1 }, 1, 'torch.DoubleStorage', 4,
                              ffi.string(ffi.new('double[4]', { 1, 2, 3, 4 }), 32)), torch.serialize(t))
    assert.is_false(require('fused.tensor').is_view(torch.deserialize(torch.serialize(t))))
  end)

  it('writes a CUDA tensor through a host copy, as its CPU class (cutorch\'s files load onto the CPU too)', function()
    if not (fused.cuda.is_available() or fused.cuda.is_emulated()) then return pending('no CUDA device: ' .. fused.cuda.why()) end
    local x = fused.randn(3, 2):to('cuda')
    local text = torch.serialize({ x, x })
    assert.matches('torch.FloatTensor', text, 1, true)
    local back = torch.deserialize(text)
    assert.equals(back[1], back[2])
    assert.equals('cpu', back[1].device)
    assert.same(x:to('cpu'):totable(), back[1]:totable())
  end)

  it('keeps an nn model after getParameters: the same outputs, the flat vector still its parameters', function()
    local script = os.tmpname()
    local f = assert(io.open(script, 'w'))
    f:write([[
require 'nn'
local model = nn.Sequential():add(nn.Linear(3, 2)):add(nn.Tanh())
local params, grads = model:getParameters()
local x = torch.randn(4, 3)
local y = model:forward(x):clone()
local back = torch.deserialize(torch.serialize({ model = model, params = params, grads = grads }))
print(torch.typename(back.model), (back.model:forward(x) - y):abs():max())
back.params:fill(0)
print(back.model.modules[1].weight:sum(), back.model.modules[1].bias:sum(), back.grads:nElement())]])
    f:close()
    local p = io.popen('FUSED_NO_READLINE=1 bin/fused th ' .. script .. ' 2>&1')
    local out = p:read('*a')
    p:close()
    os.remove(script)
    assert.equals('nn.Sequential\t0\n0\t0\t8\n', out)
  end)

  it("leaves out a class object's function field with Torch7's warning", function()
    local obj = pkg.Point(1, 2)
    obj.f = print
    local saved, warning = io.stderr, nil
    io.stderr = { write = function(_, text) warning = text end }
    local ok, text = pcall(torch.serialize, { obj })
    io.stderr = saved
    assert(ok, text)
    assert.equals('$ Warning: cannot write object field <f> of <t7spec.Point> object.1\n', warning)
    local back = torch.deserialize(text)[1]
    assert.same({ 1, 2 }, { back.x, back.y })
    assert.is_nil(back.f)
  end)

  it("with referenced = false writes a shared table twice, as Torch7's", function()
    local shared = { 1 }
    local path = os.tmpname()
    torch.save(path, { shared, shared }, 'binary', false)
    local back = torch.load(path, 'binary', false)
    os.remove(path)
    assert.same({ { 1 }, { 1 } }, back)
    assert.are_not.equal(back[1], back[2])
  end)

  it('refuses what has no .t7 form, naming the place in the object, and keeps the old file', function()
    local path = os.tmpname()
    torch.save(path, { kept = true })
    local before = read_file(path)
    local function err(obj, format)
      local ok, e = pcall(torch.save, path, obj, format)
      assert.is_false(ok)
      return e
    end
    assert.equals("torch.save: argument 'object': a function at object.layers.1.f: fused writes no code to files "
                  .. '(torch.load could not read it back)', err({ layers = { { f = print } } }))
    assert.equals("torch.save: argument 'object': a bfloat16 tensor at object.w has no Torch7 type "
                  .. '(convert it first: x:float())', err({ w = fused.zeros(2, { dtype = 'bfloat16' }) }))
    assert.equals("torch.save: argument 'object': a thread at object.co cannot be written",
                  err({ co = coroutine.create(print) }))
    local ok, e = pcall(function() torch.save(path, 1, 'b32') end)
    assert.is_false(ok)
    assert.matches("th_t7_spec.lua:%d+: torch.save: argument 'format' expected 'binary' or 'ascii', got 'b32'", e)
    local cycle = {}
    cycle[1] = cycle
    ok, e = pcall(torch.save, path, cycle, 'binary', false)
    assert.is_false(ok)
    assert.matches("^torch.save: argument 'object': objects nested deeper than 1000 levels at object.1.1", e)
    assert.equals(before, read_file(path))
    os.remove(path)
  end)

  it('nests objects 1000 deep and refuses deeper, naming torch.load', function()
    local deep = {}
    local node = deep
    for _ = 2, read.MAX_DEPTH do
      node[1] = {}
      node = node[1]
    end
    assert.is_table(torch.deserialize(torch.serialize(deep)))
    node[1] = {}
    assert.has_error(function() torch.serialize(deep) end)
    -- Tables nested n deep, each {1 = the next}.
    local function nested(n)
      local parts = {}
      for i = 1, n - 1 do parts[i] = TABLE .. i32(i) .. i32(1) .. NUMBER .. f64(1) end
      return table.concat(parts) .. TABLE .. i32(n) .. i32(0)
    end
    assert.is_table(torch.deserialize(nested(read.MAX_DEPTH)))
    assert.equals('objects nested deeper than 1000 levels', load_error(nested(read.MAX_DEPTH + 1)))
  end)

  it('writes atomically: a save that fails leaves no file', function()
    local path = os.tmpname()
    os.remove(path)
    assert.has_error(function() torch.save(path, { print }) end)
    assert.is_nil(io.open(path))
  end)
end)

describe('torch.load of corrupt files', function()
  local good = torch.serialize({ w = fused.tensor({ 1, 2, 3 }), name = 'x', [1] = { true } })

  it('refuses every truncation of a file with a message naming the byte', function()
    for n = 0, #good - 1 do
      local why = load_error(good:sub(1, n))
      assert.is_truthy(why:find('^truncated') or why:find('does not fit in the %d+ bytes left$'), why)
    end
  end)

  it('refuses bad tags, sizes past the end of the file and bytes after the value', function()
    assert.equals('unknown type tag 9 (expected 0 to 5)', load_error(i32(9)))
    assert.equals('a boolean is 7, expected 0 or 1', load_error(BOOLEAN .. i32(7)))
    assert.equals("truncated: a string needs 2147483647 bytes, 0 remain", load_error(STRING .. i32(2 ^ 31 - 1)))
    assert.equals("a string has a negative length -1", load_error(STRING .. i32(-1)))
    assert.equals("a table's size 1073741824 does not fit in the 0 bytes left", load_error(TABLE .. i32(1) .. i32(2 ^ 30)))
    assert.equals('a storage of 1125899906842624 elements does not fit in the 0 bytes left',
                  load_error(object(1, 'torch.FloatStorage') .. i64(2 ^ 50)))
    assert.equals('a storage of -1 elements does not fit in the 0 bytes left',
                  load_error(object(1, 'torch.FloatStorage') .. i64(-1)))
    assert.equals("a storage's size is 9223372036854775807: too large",
                  load_error(object(1, 'torch.FloatStorage') .. i64(0x7fffffffffffffffLL)))
    assert.equals('3 bytes after the value', load_error(NUMBER .. f64(1) .. 'abc'))
    assert.equals('a table key is nil', load_error(TABLE .. i32(1) .. i32(1) .. NIL .. NUMBER .. f64(1)))
    assert.equals('a table key is nan', load_error(TABLE .. i32(1) .. i32(1) .. NUMBER .. f64(0 / 0) .. NIL))
    assert.equals('object index 5: expected one read before (1 to 0) or the next, 1', load_error(TABLE .. i32(5)))
  end)

  it('refuses tensors that do not fit their storage', function()
    local raw = ffi.string(ffi.new('float[2]'), 8)
    assert.equals('a torch.FloatTensor reaches element 3 of a storage of 2',
                  load_error(tensor_file('torch.FloatTensor', { 3 }, { 1 }, 1, 'torch.FloatStorage', 2, raw)))
    assert.equals('a torch.FloatTensor reaches element 3 of a storage of 2',
                  load_error(tensor_file('torch.FloatTensor', { 2 }, { 1 }, 2, 'torch.FloatStorage', 2, raw)))
    assert.equals('a tensor of stride -1 at dim 1',
                  load_error(tensor_file('torch.FloatTensor', { 2 }, { -1 }, 2, 'torch.FloatStorage', 2, raw)))
    assert.equals('a tensor of size -2 at dim 1',
                  load_error(tensor_file('torch.FloatTensor', { -2 }, { 1 }, 1, 'torch.FloatStorage', 2, raw)))
    assert.equals('a tensor at storage offset 0 (counted from 1)',
                  load_error(tensor_file('torch.FloatTensor', { 1 }, { 1 }, 0, 'torch.FloatStorage', 2, raw)))
    assert.equals('a tensor of 9 dims: fused tensors have 0 to 8', load_error(object(1, 'torch.FloatTensor') .. i32(9)))
    -- Empty, yet its other sizes multiply past what a tensor can count (found by make fuzz).
    assert.equals('a tensor of sizes 1125899906842624x1125899906842624x0: too many elements',
                  load_error(object(1, 'torch.FloatTensor') .. i32(3) .. longs({ 2 ^ 50, 2 ^ 50, 0, 1, 1, 1, 1 }) .. NIL))
    assert.equals('a torch.FloatTensor holds a torch.DoubleStorage, expected a torch.FloatStorage',
                  load_error(tensor_file('torch.FloatTensor', { 1 }, { 1 }, 1, 'torch.DoubleStorage', 1, f64(1))))
    assert.equals('a torch.FloatTensor holds a number, expected a torch.FloatStorage',
                  load_error(object(1, 'torch.FloatTensor') .. i32(1) .. longs({ 1, 1, 1 }) .. NUMBER .. f64(1)))
    assert.equals('a torch.FloatTensor of 2 elements has no storage',
                  load_error(object(1, 'torch.FloatTensor') .. i32(1) .. longs({ 2, 1, 1 }) .. NIL))
  end)

  it('refuses bad ascii numbers', function()
    local ok, err = pcall(torch.deserialize, '1\nabc\n', 'ascii')
    assert.is_false(ok)
    assert.equals('torch.deserialize: at byte 5: a number is not a number: abc', err)
    ok, err = pcall(torch.deserialize, '4\n1\n3\nV 1\n16\ntorch.IntStorage\n1\n3000000000\n', 'ascii')
    assert.is_false(ok)
    assert.equals('torch.deserialize: at byte 42: the storage: 3000000000 is out of range for Int', err)
  end)
end)

describe('torch.DiskFile and torch.MemoryFile', function()
  it("write objects one after another, sharing one object index, and read them back", function()
    local shared = { 'shared' }
    local x = fused.randn(3, 4, { dtype = 'float64' })
    local mem = torch.MemoryFile('w'):binary()
    mem:writeObject({ shared, x[2] })
    mem:writeInt(7)
    mem:writeObject({ shared, x }) -- x reaches past the storage written for x[2]
    local storage = mem:storage()
    mem:close()
    -- char-rnn's clone_many_times: a reader per clone, each with objects of its own.
    local copies = {}
    for i = 1, 2 do
      local reader = torch.MemoryFile(storage, 'r'):binary()
      local first = reader:readObject()
      assert.equals(7, reader:readInt())
      local second = reader:readObject()
      reader:close()
      assert.equals(first[1], second[1])
      assert.same(x[2]:totable(), first[2]:totable())
      assert.same(x:totable(), second[2]:totable())
      copies[i] = first
    end
    assert.are_not.equal(copies[1][1], copies[2][1])
  end)

  it("are ascii unless told, as Torch7's, and a DiskFile is written at close, atomically", function()
    local path = os.tmpname()
    local f = torch.DiskFile(path, 'w')
    f:writeObject({ 1.5, 'a' })
    f:writeDouble(2.25)
    assert.equals('', read_file(path)) -- nothing until close
    f:close()
    assert.equals('3\n1\n2\n1\n1\n1\n1.5\n1\n2\n2\n1\na\n2.25\n', read_file(path))
    local r = torch.DiskFile(path, 'r')
    assert.same({ 1.5, 'a' }, r:readObject())
    assert.equals(2.25, r:readDouble())
    r:close()
    os.remove(path)
  end)

  it('refuse what a file cannot do, naming the class', function()
    local mem = torch.MemoryFile('w')
    mem:close()
    assert.has_error(function() mem:writeObject(1) end, 'torch.MemoryFile.writeObject: the file is closed')
    assert.has_error(function() torch.MemoryFile('r') end,
                     "torch.MemoryFile: argument 'mode' expected 'w' without a storage (or 'r' with one)")
    assert.has_error(function() torch.DiskFile('/tmp/x', 'rw') end,
                     "torch.DiskFile: argument 'mode' expected 'r' or 'w', got 'rw'")
    local ok, err = pcall(torch.DiskFile, '/nonexistent/t7spec')
    assert.is_false(ok)
    assert.equals('torch.DiskFile: /nonexistent/t7spec: No such file or directory', err)
    local bad = torch.MemoryFile(torch.MemoryFile('w'):binary():writeObject(1):storage(), 'r'):binary()
    bad:readObject()
    ok, err = pcall(bad.readObject, bad)
    assert.is_false(ok)
    assert.equals('torch.MemoryFile: at byte 12: truncated: a type tag needs 4 bytes, 0 remain', err)
  end)
end)

describe('the torch package', function()
  it('has save, load, serialize and deserialize', function()
    local t7 = require 'fused.th.t7'
    assert.equals(t7.save, torch.save)
    assert.equals(t7.load, torch.load)
    assert.equals(t7.serialize, torch.serialize)
    assert.equals(t7.deserialize, torch.deserialize)
    assert.equals(t7.DiskFile, torch.DiskFile)
    assert.equals(t7.MemoryFile, torch.MemoryFile)
  end)
end)
