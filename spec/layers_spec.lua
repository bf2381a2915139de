-- The layers of docs/architecture.md, read from the files: which Lua under lua/fused/ may call
-- the C libraries (libfused, libfused_cuda, the MPI and NCCL shims). A file calls C where its
-- code (comments and strings aside) names a C symbol, `x.fused_name` or `x.FUSED_NAME`, or
-- indexes `C[...]`; it reaches C where it requires fused.lib (which loads the libraries and
-- finds the others). Either must be allowed here.
local helper = require 'spec.helper'
local code_only, lua_files = helper.code_only, helper.lua_files
local LUA = 'lua/fused/'

-- A folder (ending in /) or a file, relative to lua/fused/: ANY for an op layer, else the
-- patterns of the C names it may use, and why. A file not listed calls no C.
local ANY = { '.' }
local MAY_CALL = {
  ['ops/'] = { ANY, 'the op layer: Tensor ops, one C call per op' },
  ['functional/'] = { ANY, 'the op layer: the fused nn ops' },
  ['sparse/'] = { ANY, 'the op layer: CSR matrices and spmm' },
  ['ext/'] = { ANY, 'the op layer: compiled extensions, their ops and cells' },
  ['lib.lua'] = { { '^fused_last_error$', '^fused_set_cpu_capability$', '^fused_set_gemm$' },
                  'loads libfused; raises its errors' },
  ['check.lua'] = { { '^fused_check_', '^fused_last_error$' }, "C's argument checks (c/core/check.c)" },
  ['tensor.lua'] = { { '^fused_tensor_', '^fused_bytes_in_use$', '^fused_last_error$' },
                     "the struct's life (c/core/tensor.c) and the storages' accounting" },
  ['dtype.lua'] = { { '^FUSED_NUM_DTYPES$', '^fused_dtype_info_of$', '^FUSED_NUM_DEVICES$',
                      '^fused_device_name$' }, "the dtype and device lists (fused.h)" },
  ['init.lua'] = { { '^fused_[gs]et_num_threads$', '^fused_set_cpu_capability$', '^fused_set_gemm$' },
                   'settings' },
  ['config.lua'] = { { '^fused_cpu_', '^fused_blas_', '^fused_gemm', '^fused_get_num_threads$' },
                     'the build' },
  ['cuda.lua'] = { { '^fused_cuda_', '^fused_set_device_unavailable$', '^fused_last_error$' },
                   'loads libfused_cuda' },
  ['file.lua'] = { { '^fused_file_', '^fused_write_file_atomic$', '^fused_last_error$' }, 'files' },
  ['distributed/'] = { { '^fused_mpi_', '^fused_nccl_', '^FUSED_NCCL_', '^fused_last_error$' },
                       'loads the MPI and NCCL shims' },
  ['train/interrupt.lua'] = { { '^fused_sigint_' }, "the Ctrl-C flag (c/core/signal.c)" },
  ['cell/define.lua'] = { { '^FUSED_CELL_NAME_MAX$', '^FUSED_CELL_SAVED_MAX$' },
                          "the cell registry's bounds (fused.h), checked before compiling" },
  ['cell/linear.lua'] = { { '^FUSED_SCAN_MAX_STATES$' },
                          "the scan engine's bound on states (fused.h), checked before compiling" },
}

-- The entry for path (relative to lua/fused/): its own, else its folder's.
local function rule(path)
  return MAY_CALL[path] or MAY_CALL[path:match('^(.*/)') or '']
end

local function allowed(patterns, name)
  for _, p in ipairs(patterns) do
    if name:find(p) then return true end
  end
  return false
end

-- 'path:line: what' for each C use in the lines of path (its file's, by default) that its
-- rule does not allow.
local function violations(path, lines)
  local r, found = rule(path), {}
  lines = lines or {}
  if #lines == 0 then for line in io.lines(LUA .. path) do lines[#lines + 1] = line end end
  for n, line in ipairs(lines) do
    local uses = {}
    if line:gsub('%-%-.*', ''):find("require%s*%(?%s*['\"]fused%.lib['\"]") then
      uses[#uses + 1] = 'require fused.lib'
    end
    local code = code_only(line)
    for name in code:gmatch('%.([Ff][Uu][Ss][Ee][Dd]_[%w_]*)') do
      if name:match('^fused_') or name:match('^FUSED_') then uses[#uses + 1] = name end
    end
    if code:find('%f[%w_]C%[') then uses[#uses + 1] = 'C[...]' end
    for _, name in ipairs(uses) do
      local reaches = name == 'require fused.lib'
      if not r or (not reaches and not allowed(r[1], name)) then
        found[#found + 1] = string.format('%s%s:%d: %s', LUA, path, n, name)
      end
    end
  end
  return found
end

describe('the layers', function()
  it('let only the op layers and the files listed call C', function()
    local files, found = lua_files(), {}
    assert(#files > 100, 'read only ' .. #files .. ' files')
    for _, path in ipairs(files) do
      for _, v in ipairs(violations(path)) do found[#found + 1] = v end
    end
    assert.are.equal(0, #found, 'C called outside its layer (spec/layers_spec.lua says who may):\n'
                     .. table.concat(found, '\n'))
  end)

  it('list only folders and files that exist', function()
    for path in pairs(MAY_CALL) do
      local ok = os.rename(LUA .. path, LUA .. path)
      assert(ok, path .. ' is listed in MAY_CALL but is not in ' .. LUA)
    end
  end)

  it('catch a C call where none is allowed', function()
    local code = { "local lib = require 'fused.lib'", 'return lib.C.fused_fill, ".fused_copy" -- not C.fused_copy',
                   'local C = lib.C; C[name](t)' }
    assert.are.same({ LUA .. 'nn/X.lua:1: require fused.lib', LUA .. 'nn/X.lua:2: fused_fill',
                      LUA .. 'nn/X.lua:3: C[...]' }, violations('nn/X.lua', code))
    assert.are.same({ LUA .. 'tensor.lua:2: fused_fill', LUA .. 'tensor.lua:3: C[...]' },
                    violations('tensor.lua', code))
    assert.are.same({}, violations('ops/X.lua', code))
  end)
end)
