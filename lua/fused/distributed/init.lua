-- fused.distributed: data-parallel training over processes that mpirun starts, on one machine or
-- many (docs/distributed.md). Open MPI carries CPU tensors, NCCL CUDA tensors.
--
--   local dist = fused.distributed
--   dist.init()                      -- from mpirun's environment; alone: rank 0 of 1, no MPI
--   dist.rank(), dist.size()
--   dist.allreduce(t, 'mean')        -- in place over every process: 'sum' (default) or 'mean'
--   dist.broadcast(t, 0)             -- root's values into every process's t
--   dist.barrier()
--   local dp = dist.DataParallel(model, {bucket_bytes = 25 * 2^20})   -- gradient averaging
--
-- Every wait has a deadline, FUSED_DIST_TIMEOUT seconds (default 300): a process that died or
-- stopped calling the collectives makes the others stop with a message naming the call.
local backend = require 'fused.distributed.backend'
local argcheck = require 'fused.check'
local dt = require 'fused.dtype'

local M = {}
local comm -- {rank =, size =} once initialised

-- The variables that mpirun (Open MPI's, or MPICH's Hydra) sets in each process it starts.
local LAUNCHERS = { 'OMPI_COMM_WORLD_SIZE', 'PMI_SIZE' }
local DEFAULT_TIMEOUT = 300

local function timeout_s()
  local text = os.getenv('FUSED_DIST_TIMEOUT')
  if not text or text == '' then return DEFAULT_TIMEOUT end
  local s = tonumber(text)
  if not s or s <= 0 then
    error(string.format("distributed.init: FUSED_DIST_TIMEOUT expected a number of seconds > 0, "
                        .. "got '%s'", text), 0)
  end
  return s
end

-- 'NAME=value' of the variable that says mpirun started this process, or nil.
function M.launcher()
  for _, name in ipairs(LAUNCHERS) do
    if os.getenv(name) then return name .. '=' .. os.getenv(name) end
  end
end

-- Joins the other processes when mpirun started this one, else is a single process (rank 0 of
-- 1, every collective a no-op) that needs no MPI. Once; returns the rank and the size.
function M.init()
  if not comm then
    local launcher = M.launcher()
    comm = launcher and backend.connect(launcher, timeout_s()) or { rank = 0, size = 1 }
  end
  return comm.rank, comm.size
end

function M.rank() return (M.init()) end
function M.size() return select(2, M.init()) end


local function check_tensor(fn, t, floating)
  if not argcheck.is_tensor(t) then
    error(string.format("distributed.%s: argument 't' expected a tensor, got %s", fn,
                        argcheck.type_name(t)), 3)
  end
  if floating and not dt.computes_floating[t.scalar_type] then
    error(string.format("distributed.%s: argument 't' expected a %s tensor, got %s", fn,
                        dt.floating_names(), t.dtype), 3)
  end
  argcheck.expect_writable(t, 'distributed.' .. fn, 't') -- the collective writes t
end

-- Runs collective op on t in place (then divides by divisor, if any); a strided view goes
-- through a contiguous copy.
local function in_place(op, t, root, divisor)
  local flat = t:contiguous()
  backend.wait(backend.start(op, flat, root))
  if divisor then flat:div_(divisor) end
  if not rawequal(flat, t) then t:copy_(flat) end
end

local REDUCTIONS = { sum = true, mean = true }

-- The elementwise sum (or mean) of t over every process, into t; returns t.
function M.allreduce(t, op)
  check_tensor('allreduce', t, true)
  op = op or 'sum'
  if not REDUCTIONS[op] then
    error(string.format("distributed.allreduce: argument 'op' expected 'sum' or 'mean', got %s",
                        type(op) == 'string' and "'" .. op .. "'" or argcheck.type_name(op)), 2)
  end
  local _, size = M.init()
  if size > 1 then in_place('allreduce', t, nil, op == 'mean' and size) end
  return t
end

-- Rank root's t (default 0) into every process's t; returns t.
function M.broadcast(t, root)
  check_tensor('broadcast', t, false)
  local _, size = M.init()
  root = root or 0
  if type(root) ~= 'number' or root ~= math.floor(root) or root < 0 or root >= size then
    error(string.format("distributed.broadcast: argument 'root' expected a rank in 0..%d, got %s",
                        size - 1, type(root) == 'number' and tostring(root) or argcheck.type_name(root)), 2)
  end
  if size > 1 then in_place('broadcast', t, root) end
  return t
end

-- Returns once every process has called it.
function M.barrier()
  local _, size = M.init()
  if size > 1 then backend.wait(backend.start('barrier')) end
end

function M.DataParallel(...) return require('fused.distributed.DataParallel')(...) end

return M
