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

-- A version 1.0 file with the given header dict and raw data.
local function npy(dict, data)
  local header = dict .. string.rep(' ', 63 - (10 + #dict) % 64) .. '\n'
  return '\147NUMPY\1\0' .. string.char(#header % 256, math.floor(#header / 256)) .. header .. data
end

local function f8(...)
  local ffi = require 'ffi'
  local values = { ... }
  local buf = ffi.new('double[?]', #values, values)
  return ffi.string(buf, 8 * #values)
end

describe('npy', function()
  teardown(function() os.execute('rm -rf ' .. dir) end)

  for _, dtype in ipairs({ 'float32', 'float64' }) do
    it('round-trips ' .. dtype .. ' tensors of 1 to 4 dims', function()
      for _, shape in ipairs({ { 5 }, { 2, 3 }, { 2, 1, 3 }, { 2, 3, 1, 2 } }) do
        local t = fused.randn(shape, { dtype = dtype })
        local path = dir .. '/rt.npy'
        fused.save_npy(path, t)
        local back = fused.load_npy(path)
        assert.are.equal(dtype, back.dtype)
        assert.are.same(shape, back:shape())
        helper.assert_close(back, t, 0, 'round trip')
      end
    end)
  end

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

  it('reads version 2.0 files', function()
    local dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }"
    local header = dict .. string.rep(' ', 63 - (12 + #dict) % 64) .. '\n'
    local path = write('v2.npy', '\147NUMPY\2\0' .. string.char(#header % 256, math.floor(#header / 256), 0, 0)
                       .. header .. f8(1.5, -2))
    assert.are.same({ 1.5, -2 }, fused.load_npy(path):totable())
  end)

  it('reads a 0-d array as one element', function()
    local path = write('scalar.npy', npy("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", f8(3)))
    assert.are.same({ 3 }, fused.load_npy(path):totable())
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

  describe('rejects malformed files with a clear error', function()
    local good = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }"
    local cases = {
      { 'truncated data', npy(good, f8(1)), 'holds 8' },
      { 'extra data', npy(good, f8(1, 2, 3)), 'holds 24' },
      { 'bad magic', 'NOTNUMPY' .. string.rep('\0', 100), 'bad magic' },
      { 'empty file', '', 'bad magic' },
      { 'unknown dtype string', npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", f8(1)), "unsupported dtype '<i4'" },
      { 'big-endian', npy("{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }", f8(1, 2)), 'big-endian' },
      { 'shape disagreeing with the data', npy("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }", f8(1, 2)), 'shape (3, 2)' },
      { 'Fortran order', npy("{'descr': '<f8', 'fortran_order': True, 'shape': (2,), }", f8(1, 2)), 'Fortran' },
      { 'no shape', npy("{'descr': '<f8', 'fortran_order': False, }", f8(1, 2)), 'malformed header' },
      { 'header longer than the file', '\147NUMPY\1\0\255\255{', 'truncated header' },
      { 'unknown version', '\147NUMPY\9\0\10\0{}        ', 'version 9' },
      { 'an empty dim', npy("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 2), }", ''), 'zero sizes' },
    }
    for i, case in ipairs(cases) do
      it(case[1], function()
        local path = write('bad' .. i .. '.npy', case[2])
        helper.assert_error(function() fused.load_npy(path) end, 'load_npy', path, case[3])
      end)
    end

    it('a missing file', function()
      helper.assert_error(function() fused.load_npy(dir .. '/nope.npy') end, 'load_npy', 'nope.npy')
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
