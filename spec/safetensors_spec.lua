-- fused.save / fused.load in the safetensors format, the JSON they rest on, and every kind
-- of malformed file.
local helper = require 'spec.helper'
local fused = helper.fused
local json = require 'fused.json'

local dir = os.tmpname()
os.remove(dir)
assert(os.execute('mkdir -p ' .. dir) == 0)
local function path(name) return dir .. '/' .. name end

local read = helper.read

local function write(p, bytes)
  local f = assert(io.open(p, 'wb'))
  f:write(bytes)
  f:close()
end

local function u64le(n)
  local b = {}
  for i = 1, 8 do b[i] = string.char(n % 256); n = math.floor(n / 256) end
  return table.concat(b)
end

-- A file from a header text and data bytes, as the format lays them out.
local function file(header, data) return u64le(#header) .. header .. (data or '') end

local function f32(...) -- little-endian float32 bytes
  local t = fused.tensor({ ... })
  return require('ffi').string(t.data, 4 * t:numel())
end

local function f64(...)
  local t = fused.tensor({ ... }, { dtype = 'float64' })
  return require('ffi').string(t.data, 8 * t:numel())
end

-- Asserts that loading the bytes (nil: what is at the path) fails with a message that starts with "load: <path>: " (no
-- position inside fused) and holds every fragment.
local function load_error(name, bytes, ...)
  if bytes then write(path(name), bytes) end
  local ok, err = pcall(fused.load, path(name))
  assert(not ok, 'expected an error, got none')
  local prefix = 'load: ' .. path(name) .. ': '
  assert(err:sub(1, #prefix) == prefix, string.format('error %q does not start with %q', err, prefix))
  helper.assert_error(function() error(err, 0) end, ...)
end

describe('json', function()
  it('round-trips objects, arrays, strings with escapes and numbers', function()
    local value = { a = { 1, -2.5, 1e-300, 2 ^ 53 }, b = 'x"\\\n\t\1é', c = true, d = json.null, e = {} }
    local text = json.encode(value)
    assert.are.equal('{"a":[1,-2.5,1e-300,9007199254740992],'
                     .. '"b":"x\\"\\\\\\n\\t\\u0001é","c":true,"d":null,"e":{}}', text)
    local back = json.decode(text)
    assert.are.same({ 1, -2.5, 1e-300, 2 ^ 53 }, { unpack(back.a) })
    assert.are.equal(value.b, back.b)
    assert.are.equal(json.null, back.d)
    assert.is_true(json.is_array(json.decode('[]')))
    assert.is_false(json.is_array(json.decode('{}')))
    assert.are.equal('é😀', json.decode('"\\u00e9\\ud83d\\ude00"'))
  end)

  it('hands numbers with a fraction or an exponent to parse_float, as Python does', function()
    local back = json.decode('[1, 1.0, 2e3, -0]', { parse_float = function(text) return 'float ' .. text end })
    assert.are.same({ 1, 'float 1.0', 'float 2e3', 0 }, { unpack(back) })
  end)

  it('rejects what RFC 8259 rejects, and duplicate keys, saying where', function()
    for text, why in pairs({
      ['[1,]'] = 'unexpected character at byte 4', ['01'] = 'malformed number at byte 1',
      ['1.'] = 'malformed number', ['"a'] = 'unterminated string', ['[1] 2'] = 'trailing text at byte 5',
      ['{"a":1,"a":2}'] = 'duplicate key "a"', ['{a:1}'] = 'expected a string key',
      ['"\\x"'] = 'bad escape', ['"\\ud800"'] = 'unpaired surrogate', ['"a\tb"'] = 'control character',
      [''] = 'unexpected end of text', ['nul'] = 'unexpected character', ['[1 2]'] = "expected ',' or ']'",
    }) do
      helper.assert_error(function() json.decode(text) end, 'json: ' .. why)
    end
    -- RFC 3629: overlong forms, surrogates, code points past U+10FFFF, cut sequences.
    for _, text in ipairs({ '"\255"', '"\192\128"', '"\224\159\191"', '"\237\160\128"', '"\244\144\128\128"', '"\226\130"' }) do
      helper.assert_error(function() json.decode(text) end, 'json: invalid UTF-8 at byte 2')
    end
    helper.assert_error(function() json.encode({ 0 / 0 }) end, 'cannot encode nan')
    helper.assert_error(function() json.encode({ [true] = 1 }) end, 'object keys must be strings')
  end)
end)

describe('fused.save and fused.load', function()
  teardown(function() os.execute('rm -rf ' .. dir) end)

  it('round-trip tensors of every dtype and any shape, every bit, and string metadata', function()
    local tensors = {
      w = fused.randn({ 3, 4, 2 }), b = fused.randn({ 5 }, { dtype = 'float64' }),
      s = fused.tensor({ 7 }), v = fused.randn({ 2, 3 }):t(), -- a view: saved contiguous
    }
    for _, dtype in ipairs(helper.dtypes) do tensors[dtype] = helper.sample({ 2, 3, 1 }, dtype) end
    local meta = { step = '12', config = json.encode({ hidden = 64 }) }
    fused.save(path('a.safetensors'), tensors, meta)
    local back, back_meta = fused.load(path('a.safetensors'))
    for name, t in pairs(tensors) do
      assert.are.equal(t.dtype, back[name].dtype)
      assert.are.equal('cpu', back[name].device)
      assert.are.same(t:shape(), back[name]:shape())
      assert.are.equal(helper.bytes(t), helper.bytes(back[name]), name)
    end
    assert.are.same(meta, back_meta)
    local empty, none = fused.load((function() fused.save(path('e.safetensors'), {}) return path('e.safetensors') end)())
    assert.are.same({}, empty)
    assert.are.same({}, none)
  end)

  it('writes the layout PyTorch’s safetensors reads: length, JSON header, aligned data', function()
    fused.save(path('layout.safetensors'), { a = fused.tensor({ 1, 2 }), b = fused.tensor({ 3 }, { dtype = 'float64' }) },
               { format = 'pt' })
    local bytes = read(path('layout.safetensors'))
    local n = 0
    for i = 8, 1, -1 do n = n * 256 + bytes:byte(i) end
    assert.are.equal(0, (8 + n) % 8, 'data starts on an 8-byte boundary')
    local header = json.decode(bytes:sub(9, 8 + n))
    -- float64 first, so that each tensor starts aligned to its element size.
    assert.are.same({ dtype = 'F64', shape = { 1 }, data_offsets = { 0, 8 } },
                    { dtype = header.b.dtype, shape = { unpack(header.b.shape) },
                      data_offsets = { unpack(header.b.data_offsets) } })
    assert.are.same({ 8, 16 }, { unpack(header.a.data_offsets) })
    assert.are.equal('F32', header.a.dtype)
    assert.are.same({ format = 'pt' }, header.__metadata__)
    assert.are.equal(f64(3) .. f32(1, 2), bytes:sub(9 + n))
  end)

  it('reads a file laid out by hand as PyTorch’s safetensors writes it', function()
    -- safetensors.torch.save_file({'weight': float32 2x3, 'bias': float64 [3], 'scale': 0-d
    -- float32}, metadata={'format': 'pt'}): header padded with spaces to 8 bytes.
    local header = '{"__metadata__":{"format":"pt"},"bias":{"dtype":"F64","shape":[3],"data_offsets":[0,24]},'
      .. '"scale":{"dtype":"F32","shape":[],"data_offsets":[24,28]},'
      .. '"weight":{"dtype":"F32","shape":[2,3],"data_offsets":[28,52]}}'
    header = header .. string.rep(' ', (8 - #header % 8) % 8)
    write(path('torch.safetensors'), file(header, f64(0.5, -1, 2) .. f32(4) .. f32(1, 2, 3, 4, 5, 6)))
    local t, meta = fused.load(path('torch.safetensors'))
    assert.are.same({ format = 'pt' }, meta)
    assert.are.same({ 0.5, -1, 2 }, t.bias:totable())
    assert.are.equal('float64', t.bias.dtype)
    assert.are.equal(0, t.scale:dim()) -- a 0-d tensor, as PyTorch's
    assert.are.equal(4, t.scale:item())
    assert.are.same({ { 1, 2, 3 }, { 4, 5, 6 } }, t.weight:totable())
  end)

  it('reads and writes int64 and bool as PyTorch’s safetensors does: I64, BOOL, their bytes', function()
    -- save_file({'ids': torch.tensor([2**53 + 1, -1]), 'mask': torch.tensor([True, False, True])})
    local header = '{"ids":{"dtype":"I64","shape":[2],"data_offsets":[0,16]},'
      .. '"mask":{"dtype":"BOOL","shape":[3],"data_offsets":[16,19]}}'
    header = header .. string.rep(' ', (8 - #header % 8) % 8)
    local data = '\1\0\0\0\0\0\32\0' .. string.rep('\255', 8) .. '\1\0\1'
    write(path('int.safetensors'), file(header, data))
    local t = fused.load(path('int.safetensors'))
    assert.are.equal('int64', t.ids.dtype)
    local ids = t.ids:totable()
    assert.is_true(ids[1] == 9007199254740993LL and ids[2] == -1)
    assert.are.equal('bool', t.mask.dtype)
    assert.are.same({ true, false, true }, t.mask:totable())

    fused.save(path('int-again.safetensors'), t)
    local bytes = read(path('int-again.safetensors'))
    local n = #bytes - #data - 8
    local back = json.decode(bytes:sub(9, 8 + n))
    assert.are.same({ 'I64', { 0, 16 } }, { back.ids.dtype, { unpack(back.ids.data_offsets) } })
    assert.are.same({ 'BOOL', { 16, 19 } }, { back.mask.dtype, { unpack(back.mask.data_offsets) } })
    assert.are.equal(data, bytes:sub(9 + n))
  end)

  it('replaces an existing file and leaves no temporary file behind', function()
    fused.save(path('r.safetensors'), { x = fused.tensor({ 1 }) })
    fused.save(path('r.safetensors'), { y = fused.tensor({ 2 }) })
    local t = fused.load(path('r.safetensors'))
    assert.is_nil(t.x)
    assert.are.same({ 2 }, t.y:totable())
    local listing = io.popen('ls ' .. dir):read('*a')
    assert.is_nil(listing:find('tmp'), listing)
  end)

  helper.gpu_it('saves GPU tensors through the host, loading on the CPU', function()
    local x = fused.randn({ 3, 2 })
    fused.save(path('gpu.safetensors'), { x = x:cuda() })
    local t = fused.load(path('gpu.safetensors'))
    assert.are.equal('cpu', t.x.device)
    assert.are.same(x:totable(), t.x:totable())
  end)

  it('rejects bad arguments to save, leaving nothing behind', function()
    helper.assert_error(function() fused.save(1, {}) end, "save: argument 'path' expected a string, got number")
    helper.assert_error(function() fused.save(path('x'), { a = 1 }) end, "argument 'tensors.a' expected a tensor, got number")
    helper.assert_error(function() fused.save(path('x'), { __metadata__ = fused.ones({ 1 }) }) end,
                        "expected string names other than '__metadata__'")
    helper.assert_error(function() fused.save(path('x'), {}, { step = 3 }) end,
                        "save: argument 'metadata' expected string keys and values, got step = 3 (number)")
    helper.assert_error(function() fused.save(dir .. '/no/such/dir/x', { a = fused.ones({ 1 }) }) end,
                        'save: ', 'No such file or directory')
    assert.is_nil(io.open(path('x'), 'rb'))
  end)

  it('reads what the reference reads: null metadata, unknown fields, whitespace around the header', function()
    local entry = '"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"note":1.5}'
    write(path('lenient'), file(' \t\n{"__metadata__":null,' .. entry .. '}\n  ', f32(1, 2)))
    local t, meta = fused.load(path('lenient'))
    assert.are.same({ 1, 2 }, t.a:totable())
    assert.are.same({}, meta)
  end)

  describe('rejects malformed files with clear errors, as the reference does:', function()
    local ok_entry = '"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}'
    local function entry(shape, offsets) return '{"a":{"dtype":"F32","shape":' .. shape .. ',"data_offsets":' .. offsets .. '}}' end

    it('missing, unreadable or truncated', function()
      load_error('missing', nil, 'No such file or directory')
      load_error('', nil, 'not a regular file (a directory)') -- the folder itself
      helper.assert_error(function() fused.load(1) end, 'safetensors_spec.lua', "load: argument 'path' expected a string, got number")
      load_error('short', '\1\0\0', 'truncated: 3 bytes, expected at least 8')
      load_error('long-header', u64le(1000) .. '{}', 'header length 1000 runs past the end of the file (10 bytes)')
      load_error('huge-header', u64le(100000001) .. '{}', "header length 100000001: expected at most 100000000 (the format's limit)")
      load_error('truncated-data', file('{' .. ok_entry .. '}', f32(1)),
                 "tensor \"a\": data_offsets [0, 8] run past the end of the data (4 bytes): truncated file?")
    end)

    it('a header that is not UTF-8 JSON, or not an object', function()
      load_error('bad-json', file('{"a":', ''), 'bad header: json: unexpected end of text')
      load_error('not-utf8', file('{"__metadata__":{"a":"\255"}}'), 'bad header: json: invalid UTF-8 at byte 23')
      load_error('array', file('[]'), 'bad header: expected a JSON object, got []')
      load_error('entry', file('{"a":[1]}'), "tensor \"a\": expected an object {dtype, shape, data_offsets}, got [1]")
    end)

    it('metadata other than absent, null or an object of strings', function()
      load_error('meta-false', file('{"__metadata__":false}'), "'__metadata__' expected an object of strings, got false")
      load_error('meta-list', file('{"__metadata__":["a"]}'), "'__metadata__' expected an object of strings, got [\"a\"]")
      load_error('meta-number', file('{"__metadata__":{"step":3}}'), "'__metadata__' value \"step\" expected a string, got 3")
      load_error('meta-float', file('{"__metadata__":{"lr":0.5}}'), "'__metadata__' value \"lr\" expected a string, got 0.5")
    end)

    it('a dtype that is not one, or that fused does not hold', function()
      load_error('f8', file('{"a":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[0,2]}}', '12'),
                 'tensor "a": unsupported dtype "F8_E4M3" (expected "F32", "F64", "I64", "BOOL", "BF16" or "F16")')
      load_error('bool-2', file('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
                                .. '"m":{"dtype":"BOOL","shape":[3],"data_offsets":[4,7]}}', f32(1) .. '\0\1\7'),
                 'tensor "m": bool element 3 is the byte 7: expected 0 or 1')
      load_error('nodtype', file('{"a":{"shape":[2],"data_offsets":[0,8]}}', f32(1, 2)),
                 "tensor \"a\": 'dtype' expected a safetensors dtype such as \"F32\", got nil")
      load_error('lowercase', file('{"a":{"dtype":"f32","shape":[2],"data_offsets":[0,8]}}', f32(1, 2)), 'got "f32"')
    end)

    it('sizes and offsets that are not non-negative integers', function()
      load_error('zero-null', file(entry('[0,null]', '[0,0]')), "tensor \"a\": 'shape' expected non-negative integer sizes, got null at 2")
      load_error('negative', file(entry('[-1]', '[0,4]'), f32(1)), "'shape' expected non-negative integer sizes, got -1 at 1")
      load_error('float-size', file(entry('[1.0]', '[0,4]'), f32(1)), 'got 1.0 at 1')
      load_error('exp-size', file(entry('[1e0]', '[0,4]'), f32(1)), 'got 1e0 at 1')
      load_error('huge-size', file(entry('[9007199254740993]', '[0,4]'), f32(1)), 'got 9007199254740992 at 1')
      load_error('shape-obj', file(entry('{}', '[0,4]'), f32(1)), "'shape' expected a list of sizes, got {...}")
      load_error('float-offset', file(entry('[1]', '[0.0,4]'), f32(1)),
                 "'data_offsets' expected [begin, end], two non-negative integers, got [0.0, 4]")
      load_error('minus-zero', file(entry('[1]', '[-0,4]'), f32(1)), 'got [-0, 4]')
      load_error('three-offsets', file(entry('[1]', '[0,4,4]'), f32(1)), 'got [0, 4, 4]')
    end)

    it('offsets that do not match the shape, and shapes fused cannot hold', function()
      load_error('mismatch', file('{"a":{"dtype":"F64","shape":[2],"data_offsets":[0,8]}}', f64(1)),
                 "tensor \"a\": data_offsets [0, 8] hold 8 bytes, but shape [2] of F64 needs 16")
      load_error('half-mismatch', file('{"a":{"dtype":"BF16","shape":[2],"data_offsets":[0,8]}}', f64(1)),
                 "tensor \"a\": data_offsets [0, 8] hold 8 bytes, but shape [2] of BF16 needs 4")
      load_error('overflow', file(entry('[4294967296,4294967296]', '[0,4]'), f32(1)), 'needs over 2^53')
      load_error('backwards', file(entry('[1]', '[4,0]'), f32(1)), 'data_offsets [4, 0] begin after they end')
      load_error('nine-dims', file(entry('[1,1,1,1,1,1,1,1,1]', '[0,4]'), f32(1)), 'has 9 dims: fused tensors have at most 8')
    end)

    it('overlapping offsets, gaps and trailing bytes', function()
      load_error('overlap', file('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},'
                                 .. '"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}', f32(1, 2, 3)),
                 "tensor \"b\": data_offsets [4, 12] overlap another tensor's")
      load_error('gap', file('{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}', f32(1, 2)),
                 "tensor \"a\": a gap of 4 bytes before its data_offsets [4, 8]")
      load_error('trailing', file('{' .. ok_entry .. '}', f32(1, 2, 3)),
                 'the tensors hold 8 bytes of data, but the file has 12 after the header')
    end)
  end)
end)

describe('half-precision checkpoints', function()
  -- Made by PyTorch (spec/golden/half/make.py): F16 and BF16 tensors and each one's exact
  -- value in F64, as <name>_value.
  local made = helper.golden .. '/half/half.safetensors'

  -- Every element the same number, bit for bit: -0 apart from 0, NaN where NaN.
  local function assert_same_values(got, want, what)
    local a, b = got:double():totable(), want:totable()
    assert.are.equal(#a, #b, what)
    for i = 1, #a do
      local same = a[i] == b[i] and 1 / a[i] == 1 / b[i] or a[i] ~= a[i] and b[i] ~= b[i]
      assert(same, string.format('%s[%d]: %.17g, expected %.17g', what, i, a[i], b[i]))
    end
  end

  it('load F16 and BF16 as float16 and bfloat16, exactly: subnormals, -0, infinities and NaN included', function()
    local t, meta = fused.load(made)
    assert.truthy(meta.made_by:find('^torch '))
    for _, name in ipairs({ 'f16', 'bf16', 'f16_matrix', 'bf16_matrix' }) do
      assert.are.equal(name:find('^bf') and 'bfloat16' or 'float16', t[name].dtype, name)
      assert.are.same(t[name .. '_value']:shape(), t[name]:shape(), name)
      if name:find('matrix') then
        assert.are.same({ 3, 4 }, t[name]:shape())
        assert_same_values(t[name]:reshape({ 12 }), t[name .. '_value']:reshape({ 12 }), name)
      else
        assert_same_values(t[name], t[name .. '_value'], name)
      end
    end
  end)

  it('convert every floating tensor to {dtype = ...}, leaving integers as they are', function()
    local t = fused.load(made, { dtype = 'float64' })
    assert.are.equal('float64', t.f16.dtype)
    assert.are.equal('float64', t.bf16_value.dtype)
    assert_same_values(t.bf16, t.bf16_value, 'bf16')
    local p = os.tmpname()
    fused.save(p, { i = fused.tensor({ 1, 2 }, { dtype = 'int64' }), x = fused.tensor({ 0.5 }, { dtype = 'float64' }) })
    local back = fused.load(p, { dtype = 'float32' })
    assert.are.equal('int64', back.i.dtype)
    assert.are.equal('float32', back.x.dtype)
    os.remove(p)
  end)

  it('save float16 and bfloat16 as F16 and BF16, the same bytes as PyTorch wrote', function()
    local t = fused.load(made)
    local p = os.tmpname()
    fused.save(p, { f16 = t.f16, bf16 = helper.has_cuda() and t.bf16:cuda() or t.bf16 })
    local back = fused.load(p)
    os.remove(p)
    assert.are.equal('float16', back.f16.dtype)
    assert.are.equal('bfloat16', back.bf16.dtype)
    assert.are.equal(helper.bytes(t.f16), helper.bytes(back.f16))
    assert.are.equal(helper.bytes(t.bf16), helper.bytes(back.bf16))
  end)

  it('reject a dtype option that is not a floating dtype, naming it', function()
    helper.assert_error(function() fused.load(made, { dtype = 'int64' }) end,
                        "load: option 'dtype' expected a floating dtype ('float32', 'float64', 'bfloat16' or 'float16'), got 'int64'")
    helper.assert_error(function() fused.load(made, { dtyp = 'float32' }) end, "load: unknown option 'dtyp'")
  end)
end)
