-- Run by `make test-asan` only (its Makefile rule names this file): on the CUDA emulator built
-- with AddressSanitizer, a kernel that reads past its tensor is an ASan error naming the
-- kernel, although fused's caching allocator rounds blocks up and keeps them; an op on a freed
-- tensor is stopped before its kernel.
local helper = require 'spec.helper'

-- Runs spec/cuda_emu/kernels.cu's emu_read_past in a child process (ASan ends it at the first
-- error) on a tensor of 3 int64, reading `extra` more; `free` drops the tensor first, keeping
-- its pointer. Returns what the child printed.
local function read_past(extra, free)
  return helper.child(string.format([[
    local K = fused.ext.load { name = 'cuda_emu_kernels_asan',
      sources = { 'spec/cuda_emu/kernels.cu', 'spec/cuda_emu/kernels.h' },
      cuda_cflags = { '-fsanitize=address', '-fno-omit-frame-pointer', '-g' } }
    local x = fused.tensor({ 1, 2, 3 }, { dtype = 'int64' }):cuda()
    local out = fused.zeros({ 64 }, { dtype = 'int64', device = 'cuda' })
    local ffi = require 'ffi'
    -- a copy of x's header that no finalizer releases: it outlives x when x is dropped (its
    -- fields are const to Lua, so the copy goes through a void pointer)
    local view = ffi.new('fused_tensor[1]')
    ffi.copy(ffi.cast('void *', view), x, ffi.sizeof('fused_tensor'))
    if %s then x = nil; collectgarbage(); collectgarbage() end
    fused.ext.check(K.emu_read_past(out, view, %d))
    print('read_past: no error')
  ]], tostring(free), extra))
end

describe('the CUDA emulator under AddressSanitizer', function()
  it('passes a kernel that stays within its tensor', function()
    local out = read_past(0, false)
    assert.truthy(out:find('read_past: no error', 1, true), out)
  end)

  it('stops a kernel that reads past its tensor, naming the kernel', function()
    local out = read_past(1, false)
    assert.truthy(out:find('AddressSanitizer', 1, true), out)
    assert.truthy(out:find('read_past_kernel', 1, true), out)
    assert.falsy(out:find('read_past: no error', 1, true), out)
  end)

  -- The header outlives its storage: check_tensor, which reads the storage to check the
  -- header's extent (check_extent), is where ASan stops the op, before any kernel runs.
  it('stops an op on a freed tensor, before its kernel', function()
    local out = read_past(0, true)
    assert.truthy(out:find('AddressSanitizer: heap-use-after-free', 1, true), out)
    assert.truthy(out:find('check_extent', 1, true), out)
    assert.falsy(out:find('read_past: no error', 1, true), out)
  end)
end)
