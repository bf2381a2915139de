-- NumPy .npy reading and writing: round trips, every golden file, malformed files.
local helper = require 'spec.helper'
local fused = helper.fused

local dir = os.tmpname()
os.remove(dir)
os.execute('mkdir -p ' .. dir)

local function write(name, bytes)
  local path = dir .. '/' .. name
  local f = assert(io.open(path, 'wb'))
  f:write(bytes)
  f:close()
  return path
end

-- A file of the given version (default 1.0) with exactly the given header text.
local function raw_npy(header, data, major, minor)
  local n = #header
  local len = (major or 1) == 1 and string.char(n % 256, math.floor(n / 256))
    or string.char(n % 256, math.floor(n / 256) % 256, math.floor(n / 65536) % 256, 0)
  return '\147NUMPY' .. string.char(major or 1, minor or 0) .. len .. header .. data
end

-- The same with the header dict padded as NumPy pads it: spaces and a newline to 64 bytes.
local function npy(dict, data, major, minor)
  local prefix = (major or 1) == 1 and 10 or 12
  return raw_npy(dict .. string.rep(' ', 63 - (prefix + #dict) % 64) .. '\n', data, major, minor)
end

-- Asserts that loading path fails with a message that starts with "load_npy: <path>: " (no
-- position inside fused) and holds every fragment.
local function assert_load_error(path, ...)
  local ok, err = pcall(fused.load_npy, path)
  assert(not ok, 'expected an error, got none')
  local prefix = 'load_npy: ' .. path .. ': '
  assert(err:sub(1, #prefix) == prefix, string.format('error %q does not start with %q', err, prefix))
  helper.assert_error(function() error(err, 0) end, ...)
end

local function f8(...)
  local ffi = require 'ffi'
  local values = { ... }
  local buf = ffi.new('double[?]', #values, values)
  return ffi.string(buf, 8 * #values)
end

describe('npy', function()
  teardown(function() os.execute('rm -rf ' .. dir) end)

  it('refuses bfloat16, which NumPy has no type for', function()
    helper.assert_error(function() fused.save_npy(dir .. '/bf.npy', fused.ones(2):bfloat16()) end,
                        "save_npy: argument 't' is a bfloat16 tensor, which .npy files cannot hold")
  end)

  for _, dtype in ipairs(helper.dtypes) do
    if dtype ~= 'bfloat16' then it('round-trips ' .. dtype .. ' tensors of 1 to 4 dims, every bit', function()
      for _, shape in ipairs({ { 5 }, { 2, 3 }, { 2, 1, 3 }, { 2, 3, 1, 2 } }) do
        local t = helper.sample(shape, dtype)
        local path = dir .. '/rt.npy'
        fused.save_npy(path, t)
        local back = fused.load_npy(path)
        assert.are.equal(dtype, back.dtype)
        assert.are.same(shape, back:shape())
        assert.are.equal(helper.bytes(t), helper.bytes(back))
      end
    end) end
  end

  it('reads and writes the bytes NumPy writes for each dtype', function()
    -- np.save(path, np.array(values, dtype)): the header padded to 64 bytes, then the data.
    local files = {
      { 'float32', '<f4', { 1.5, -2 }, '\0\0\192\63\0\0\0\192' },
      { 'float64', '<f8', { 1.5, -2 }, '\0\0\0\0\0\0\248\63' .. '\0\0\0\0\0\0\0\192' },
      { 'int64', '<i8', { 9007199254740993LL, -1 }, '\1\0\0\0\0\0\32\0' .. string.rep('\255', 8) },
      { 'bool', '|b1', { true, false }, '\1\0' },
      { 'float16', '<f2', { 1.5, -2 }, '\0\62\0\192' },
    }
    for _, f in ipairs(files) do
      local bytes = npy("{'descr': '" .. f[2] .. "', 'fortran_order': False, 'shape': (2,), }", f[4])
      local t = fused.load_npy(write(f[1] .. '.npy', bytes))
      assert.are.equal(f[1], t.dtype)
      local values = t:totable()
      assert.is_true(values[1] == f[3][1] and values[2] == f[3][2], f[1])
      fused.save_npy(dir .. '/again.npy', t)
      assert.are.equal(bytes, assert(io.open(dir .. '/again.npy', 'rb')):read('*a'), f[1])
    end
  end)

  it('saves a non-contiguous view as its values', function()
    local t = fused.randn({ 3, 4 }, { dtype = 'float64' })
    fused.save_npy(dir .. '/t.npy', t:t())
    helper.assert_close(fused.load_npy(dir .. '/t.npy'), t:t(), 0, 'transpose')
  end)

  it('writes a header numpy reads: version 1.0, 64-byte aligned, shape tuple', function()
    fused.save_npy(dir .. '/h.npy', fused.zeros({ 7 }, { dtype = 'float64' }))
    local bytes = assert(io.open(dir .. '/h.npy', 'rb')):read('*a')
    assert.are.equal('\147NUMPY\1\0', bytes:sub(1, 8))
    local len = bytes:byte(9) + 256 * bytes:byte(10)
    assert.are.equal(0, (10 + len) % 64)
    assert.truthy(bytes:sub(11, 10 + len):find("'shape': (7,)", 1, true))
    assert.are.equal(10 + len + 56, #bytes)
  end)

  it('reads versions 2.0 and 3.0, and what Python writes in a header that NumPy reads', function()
    local dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }"
    for _, major in ipairs({ 2, 3 }) do
      assert.are.same({ 1.5, -2 }, fused.load_npy(write('v' .. major .. '.npy', npy(dict, f8(1.5, -2), major))):totable())
    end
    for name, text in pairs({
      double_quotes = '{"descr": "<f8", "fortran_order": False, "shape": (2,)}',
      newlines_inside = "{'descr': '<f8',\n 'fortran_order': False,\n 'shape': ( 2 , ) }",
      python2_long = "{'descr': '<f8', 'fortran_order': False, 'shape': (2L,), }", -- versions 1.0, 2.0 only
      old_16_byte_padding = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }     ",
    }) do
      local header = text:find('\n$') and text or text .. '\n'
      assert.are.same({ 1.5, -2 }, fused.load_npy(write(name .. '.npy', raw_npy(header, f8(1.5, -2)))):totable(), name)
    end
  end)

  it('takes the last of repeated keys, as Python (and so NumPy) does', function()
    local path = write('dup.npy', npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'shape': (2,)}", f8(1, 2)))
    assert.are.same({ 2 }, fused.load_npy(path):shape())
  end)

  it('reads every file in the golden folder', function()
    local list = io.popen('find ' .. helper.golden .. ' -name "*.npy" | sort')
    local count = 0
    for path in list:lines() do
      local t = fused.load_npy(path)
      assert.are.equal('float64', t.dtype)
      assert.is_true(t:numel() >= 1)
      count = count + 1
    end
    list:close()
    assert.is_true(count >= 100, 'expected the golden files, found ' .. count)
  end)

  describe('rejects what NumPy rejects, and what fused cannot hold, naming the file:', function()
    local good = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }"
    local function with_shape(shape) return "{'descr': '<f8', 'fortran_order': False, 'shape': " .. shape .. ", }" end
    local cases = {
      { 'truncated data', npy(good, f8(1)), 'shape (2,) of float64 needs 16 bytes of data, but the file holds 8' },
      { 'extra data', npy(good, f8(1, 2, 3)), 'the file holds 24' },
      { 'bad magic', 'NOTNUMPY' .. string.rep('\0', 100), "not a .npy file: expected it to start with '\\x93NUMPY', got 'NOTNUM'" },
      { 'empty file', '', "not a .npy file" },
      { 'a minor version', npy(good, f8(1, 2), 1, 1), 'unsupported format version 1.1: expected 1.0, 2.0 or 3.0' },
      { 'an unknown version', '\147NUMPY\9\0\10\0{}        ', 'unsupported format version 9.0' },
      { 'no room for the length', '\147NUMPY\2\0\1', 'truncated: 9 bytes, too short for the version 2.0 header length' },
      { 'header longer than the file', '\147NUMPY\1\0\232\3{', 'truncated header: 1000 bytes announced, 1 in the file' },
      { 'header longer than NumPy reads', '\147NUMPY\2\0\17\39\0\0{', 'header of 10001 bytes: expected at most 10000' },
      -- The header was searched for patterns: all of these loaded.
      { 'text before the dict', raw_npy('x' .. good .. '\n', f8(1, 2)), "malformed header: expected a dict, '{' first, got 'x{'descr'" },
      { 'text after the dict', raw_npy(good .. ' x\n', f8(1, 2)), "expected only spaces after the dict, got ' x'" },
      { 'no newline', raw_npy(good, f8(1, 2)), "malformed header: expected a newline last (after the padding), got 'se, 'shape': (2,), }' at its end" },
      { 'an empty size', npy(with_shape('(2,,1)'), f8(1, 2)), 'malformed header: expected a dict, string, tuple, integer, True or False at byte 54 of the header, got \',1), }' },
      { 'a lone comma', npy(with_shape('(,)'), f8(1, 2)), 'at byte 52 of the header' },
      { 'a number for a tuple', npy(with_shape('(2)'), f8(1, 2)), "'shape' expected a tuple of integers, got an integer" },
      { 'an extra key', npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': 1}", f8(1, 2)),
        "expected the keys 'descr', 'fortran_order' and 'shape', got 'descr', 'fortran_order', 'shape', 'x'" },
      { 'a leading zero', npy(with_shape('(02,)'), f8(1, 2)), 'expected an integer without leading zeros' },
      { 'a Python 2 long in version 3.0', npy(with_shape('(2L,)'), f8(1, 2), 3), "expected ',' or ')'" },
      { 'deep brackets', npy(with_shape(string.rep('(', 40)), f8(1, 2)), 'expected at most 16 nested brackets' },
      { 'no shape', npy("{'descr': '<f8', 'fortran_order': False, }", f8(1, 2)), "expected the keys 'descr', 'fortran_order' and 'shape', got 'descr', 'fortran_order'" },
      { 'a list for the shape', npy(with_shape('[2]'), f8(1, 2)), 'malformed header: expected a dict, string, tuple, integer, True or False' },
      { 'fortran_order not a bool', npy("{'descr': '<f8', 'fortran_order': 0, 'shape': (2,), }", f8(1, 2)), "'fortran_order' expected True or False, got an integer" },
      { 'an unknown dtype string', npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", f8(1)), "unsupported dtype '<i4': expected '<f4', '<f8', '<i8', '|b1' or '<f2'" },
      { 'descr not a string', npy("{'descr': True, 'fortran_order': False, 'shape': (2,), }", f8(1)), "'descr' expected '<f4', '<f8', '<i8', '|b1' or '<f2', got a bool" },
      { 'big-endian', npy("{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }", f8(1, 2)), 'big-endian' },
      { 'big-endian int64', npy("{'descr': '>i8', 'fortran_order': False, 'shape': (2,), }", f8(1, 2)),
        "big-endian data ('>i8') is not supported: expected '<f4', '<f8', '<i8', '|b1' or '<f2'" },
      { 'a bool byte other than 0 or 1', npy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", '\1\0\2'),
        'bool element 3 is the byte 2: expected 0 or 1' },
      { 'Fortran order', npy("{'descr': '<f8', 'fortran_order': True, 'shape': (2,), }", f8(1, 2)), 'Fortran' },
      { 'shape disagreeing with the data', npy(with_shape('(3, 2)'), f8(1, 2)), 'shape (3, 2) of float64 needs 48 bytes' },
      { 'a size past 2^53', npy(with_shape('(' .. string.rep('9', 30) .. ', 2)'), f8(1, 2)), 'needs over 2^53 bytes' },
      { 'a negative size', npy(with_shape('(-2,)'), f8(1, 2)), 'shape (-2,) holds a negative size' },
      -- Beside a size 0 the data is empty whatever the other sizes: the error was empty's.
      { 'a size past 2^53 beside a 0', npy(with_shape('(0, ' .. string.rep('9', 20) .. ')'), ''),
        'shape (0, 99999999999999999999) holds a size of 2^53 or more' },
      { 'a size of 2^62 beside a 0', npy(with_shape('(4611686018427387904, 0)'), ''),
        'shape (4611686018427387904, 0) holds a size of 2^53 or more' },
      -- fused tensors have 0 to 8 dims (0-d and empty arrays load: spec/empty_spec.lua).
      { 'nine dims', npy(with_shape('(1, 1, 1, 1, 1, 1, 1, 1, 2)'), f8(1, 2)), 'has 9 dims: fused tensors have 0 to 8' },
    }
    for i, case in ipairs(cases) do
      it(case[1], function() assert_load_error(write('bad' .. i .. '.npy', case[2]), case[3]) end)
    end

    it('a missing file, a directory, a path that is not a string', function()
      assert_load_error(dir .. '/nope.npy', 'No such file or directory')
      assert_load_error(dir, 'not a regular file (a directory)')
      helper.assert_error(function() fused.load_npy(1) end, "npy_spec.lua", "load_npy: argument 'path' expected a string, got number")
    end)
  end)

  it('save_npy names bad arguments', function()
    helper.assert_error(function() fused.save_npy(dir .. '/x.npy', {}) end, 'save_npy', "'t'", 'tensor', 'table')
    helper.assert_error(function() fused.save_npy(nil, fused.zeros(1)) end, 'save_npy', "'path'")
  end)

  it('leaves no file behind when the write fails, and keeps an old file whole', function()
    local path = dir .. '/keep.npy'
    fused.save_npy(path, fused.ones({ 3 }, { dtype = 'float64' }))
    helper.assert_error(function() fused.save_npy(dir .. '/no/such/dir/x.npy', fused.zeros(1)) end, 'save_npy')
    assert.are.same({ 1, 1, 1 }, fused.load_npy(path):totable())
    local leftovers = io.popen('ls ' .. dir .. ' | grep -c tmp'):read('*a')
    assert.are.equal('0', leftovers:match('%d+'))
  end)
end)
