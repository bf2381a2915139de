-- Every shared library fused loads with ffi.load is linked -z nodelete (../shared/TOOLCHAIN.md),
-- so that dlclose never unmaps it: busted loads fused again for each spec file and collects
-- the earlier files' handles while the libraries are in use (libfused's device table points
-- into libfused_cuda, tensors' finalizers free device memory through it, libgomp's threads run
-- the OpenMP ones' code). Read from each file's dynamic section, so that nothing is loaded
-- (valgrind reports the loader's own reads; libnccl need not be here).
local ffi = require 'ffi'
local lib = require 'fused.lib'

ffi.cdef [[
typedef struct { uint8_t ident[16]; uint16_t type, machine; uint32_t version; uint64_t entry,
                 phoff, shoff; uint32_t flags; uint16_t ehsize, phentsize, phnum, shentsize,
                 shnum, shstrndx; } fused_spec_elf64_ehdr;
typedef struct { uint32_t type, flags; uint64_t offset, vaddr, paddr, filesz, memsz,
                 align; } fused_spec_elf64_phdr;
typedef struct { int64_t tag; uint64_t val; } fused_spec_elf64_dyn;
]]
local PT_DYNAMIC, DT_NULL, DT_FLAGS_1, DF_1_NODELETE = 2, 0, 0x6ffffffb, 0x8

-- Whether the ELF64 shared library at path has DF_1_NODELETE in its DT_FLAGS_1.
local function nodelete(path)
  local f = assert(io.open(path, 'rb'))
  local bytes = f:read('*a')
  f:close()
  assert(bytes:sub(1, 5) == '\127ELF\2', path .. ': not an ELF64 file')
  local buf = ffi.new('uint8_t[?]', #bytes) -- owns its copy: every cast below is from it
  ffi.copy(buf, bytes, #bytes)
  local eh = ffi.cast('const fused_spec_elf64_ehdr *', buf)
  for i = 0, eh.phnum - 1 do
    local ph = ffi.cast('const fused_spec_elf64_phdr *', buf + eh.phoff + i * eh.phentsize)
    if ph.type == PT_DYNAMIC then
      local dyn = ffi.cast('const fused_spec_elf64_dyn *', buf + ph.offset)
      for k = 0, tonumber(ph.filesz) / ffi.sizeof('fused_spec_elf64_dyn') - 1 do
        if dyn[k].tag == DT_NULL then break end
        if dyn[k].tag == DT_FLAGS_1 then return bit.band(tonumber(dyn[k].val), DF_1_NODELETE) ~= 0 end
      end
    end
  end
  return false
end

-- The libraries as fused finds them (FUSED_LIB and the others name the sanitizer's builds).
local LIBRARIES = {
  { 'libfused', 'FUSED_LIB' }, { 'libfused_cuda', 'FUSED_CUDA_LIB' },
  { 'libfused_cuda_emu', 'FUSED_CUDA_EMU_LIB' }, { 'libfused_mpi', 'FUSED_MPI_LIB' },
  { 'libfused_nccl', 'FUSED_NCCL_LIB' }, { 'libfused_nccl_emu', 'FUSED_NCCL_EMU_LIB' },
}

describe('the libraries fused loads', function()
  for _, l in ipairs(LIBRARIES) do
    local name, env = l[1], l[2]
    it(name .. ' is linked -z nodelete', function()
      local path = lib.find(name, env)
      if not path then pending(name .. '.so is not built here'); return end
      assert(nodelete(path), path .. ' lacks -z nodelete: dlclose would unmap it under its users')
    end)
  end
end)
