-- The engines under fused.distributed: Open MPI (libfused_mpi.so) for the processes and CPU
-- tensors, NCCL (libfused_nccl.so) for CUDA tensors, its unique id handed out over MPI. A
-- collective is started, then waited for with a deadline; a started one is a request:
--
--   local comm = backend.connect(timeout_s)   -- {rank =, size =}
--   local r = backend.start('allreduce', t)   -- in-place sum; ('broadcast', t, root); ('barrier')
--   backend.test(r)                           -- lets MPI progress: whether it has completed
--   backend.wait(r)                           -- returns once done; a Lua error naming the call
local ffi = require 'ffi'
local lib = require 'fused.lib'
local factory = require 'fused.factory'

-- Declarations only: harmless without the libraries.
ffi.cdef(require 'fused.distributed.mpi_cdef')
ffi.cdef(require 'fused.distributed.nccl_cdef')

local M = {}
local mpi, nccl, timeout, comm

-- Loads libfused_mpi.so (globally: Open MPI's plugins resolve symbols of libmpi) or raises
-- what is missing.
local function load_mpi(launcher)
  local path = lib.find('libfused_mpi', 'FUSED_MPI_LIB')
  local missing = 'install Open MPI (Debian: apt-get install openmpi-bin libopenmpi-dev) and run make'
  if not path then
    error(string.format('distributed.init: launched by mpirun (%s) but libfused_mpi.so was not '
                        .. 'built: %s', launcher, missing), 0)
  end
  local ok, C = pcall(ffi.load, path, true)
  if not ok then
    error(string.format('distributed.init: %s did not load (%s): %s', path, tostring(C), missing), 0)
  end
  return C
end

local function check(rc)
  if rc ~= 0 then error(ffi.string(lib.C.fused_last_error()), 0) end
end

-- Joins the processes that mpirun started (launcher names its environment variable), with
-- timeout_s seconds as every wait's deadline.
function M.connect(launcher, timeout_s)
  mpi, timeout = load_mpi(launcher), timeout_s
  local rank, size = ffi.new('int32_t[1]'), ffi.new('int32_t[1]')
  check(mpi.fused_mpi_init(rank, size))
  comm = { rank = rank[0], size = size[0] }
  return comm
end

-- NCCL's communicator, joined on the first collective of a CUDA tensor: rank 0's unique id
-- reaches the others in a broadcast over MPI.
local function connect_nccl()
  -- the CUDA emulator's processes reduce over MPI (cuda/emu/dist/nccl.cpp)
  local path = require('fused.cuda').is_emulated() and lib.find('libfused_nccl_emu', 'FUSED_NCCL_EMU_LIB')
    or lib.find('libfused_nccl', 'FUSED_NCCL_LIB')
  if not path then
    error('distributed: a cuda tensor needs libfused_nccl.so, which was not built (make builds it '
          .. 'where nvcc and nccl.h are)', 0)
  end
  local ok, C = pcall(ffi.load, path)
  if not ok then error('distributed: libfused_nccl.so did not load: ' .. tostring(C), 0) end
  local id = factory.zeros({ C.FUSED_NCCL_ID_BYTES / 8 }, { dtype = 'float64' }) -- 128 bytes
  if comm.rank == 0 then check(C.fused_nccl_unique_id(ffi.cast('char *', id.data))) end
  M.wait(M.start('broadcast', id, 0))
  check(C.fused_nccl_init(ffi.cast('char *', id.data), comm.rank, comm.size, timeout))
  nccl = C
end

local request = ffi.new('fused_mpi_request *[1]')
local done = ffi.new('int32_t[1]')

function M.start(op, t, root)
  if t and t.device == 'cuda' then
    if not nccl then connect_nccl() end
    check(op == 'allreduce' and nccl.fused_nccl_allreduce(t) or nccl.fused_nccl_broadcast(t, root))
    return { nccl = true }
  end
  if op == 'allreduce' then
    check(mpi.fused_mpi_allreduce_start(t, request))
  elseif op == 'broadcast' then
    check(mpi.fused_mpi_broadcast_start(t, root, request))
  else
    check(mpi.fused_mpi_barrier_start(request))
  end
  return { mpi = request[0] }
end

-- NCCL progresses on the GPU by itself; MPI only inside its calls.
function M.test(r)
  if r.nccl then return false end
  check(mpi.fused_mpi_test(r.mpi, done))
  return done[0] == 1
end

function M.wait(r)
  if r.nccl then return check(nccl.fused_nccl_wait(timeout)) end
  local pending = r.mpi
  r.mpi = nil -- freed by the wait, even when it fails
  check(mpi.fused_mpi_wait(pending, timeout))
end

return M
