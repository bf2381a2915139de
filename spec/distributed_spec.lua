-- fused.distributed: one process without MPI here; then 2 processes under mpirun (Open MPI on
-- the loopback, as CI runs it): collectives, DataParallel's buckets, a dead peer, and
-- examples/train.lua giving one process's losses. Pending, with the reason, where mpirun or
-- libfused_mpi.so is missing; the NCCL case where no GPU is. Workers are spec/distributed/*.lua.
local helper = require 'spec.helper'
local fused = helper.fused
local lib = require 'fused.lib'
local dist = fused.distributed

local function absolute(p) return p:match('^/') and p or io.popen('pwd'):read('*l') .. '/' .. p end
local root = absolute(debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '../'
local dir = os.tmpname()
os.remove(dir)
assert(os.execute('mkdir -p ' .. dir) == 0)

local read = helper.read

-- Runs a shell command from the checkout with this process's libfused; returns its exit
-- status and everything it printed.
local function shell(command)
  local status = os.execute(string.format(
    "cd %s && LUA_PATH='lua/?.lua;lua/?/init.lua;;' FUSED_LIB=%s %s > %s/out 2>&1", root,
    absolute(lib.path), command, dir))
  return status, read(dir .. '/out')
end

-- Two processes on this machine, as root too, with no network beyond the loopback and no ssh
-- (plm_rsh_agent unset: mpirun otherwise looks for one even for local processes), copying
-- through shared memory rather than across processes (containers often forbid the latter).
local function mpirun(env, args)
  return shell(env .. ' OMPI_MCA_plm_rsh_agent= timeout 120 mpirun --allow-run-as-root '
               .. '--oversubscribe --mca btl self,vader --mca btl_vader_single_copy_mechanism none '
               .. '-np 2 ' .. args)
end

local why_not = os.execute('command -v mpirun >/dev/null 2>&1') ~= 0 and 'mpirun is not installed'
  or not lib.find('libfused_mpi', 'FUSED_MPI_LIB') and 'libfused_mpi.so was not built (no Open MPI '
  .. 'when make ran)'
local function mpi_it(name, f)
  it(name, function()
    if why_not then pending(why_not .. ': apt-get install openmpi-bin libopenmpi-dev, then make') end
    f()
  end)
end

-- The losses of a CSV log, by step.
local function logged(path)
  local losses = {}
  for step, loss in read(path):gmatch('\n(%d+),([^,]+)') do losses[tonumber(step)] = tonumber(loss) end
  return losses
end

describe('fused.distributed on one process', function()
  it('is rank 0 of 1 without mpirun, and its collectives leave tensors as they are', function()
    assert.are.same({ 0, 1 }, { dist.init() })
    assert.are.equal(0, dist.rank())
    assert.are.equal(1, dist.size())
    local t = fused.tensor({ 1, 2 })
    assert(rawequal(dist.allreduce(t, 'mean'), t))
    helper.assert_close(t, fused.tensor({ 1, 2 }), 0)
    helper.assert_close(dist.broadcast(t, 0), fused.tensor({ 1, 2 }), 0)
    dist.barrier()
  end)

  it('names the argument, what it expected and what came', function()
    helper.assert_error(function() dist.allreduce({ 1, 2 }) end,
                        "distributed.allreduce: argument 't' expected a tensor, got table")
    helper.assert_error(function() dist.allreduce(fused.ones({ 2 }), 'max') end,
                        "distributed.allreduce: argument 'op' expected 'sum' or 'mean', got 'max'")
    helper.assert_error(function() dist.allreduce(fused.tensor({ true })) end,
                        "expected a float32 or float64 tensor, got bool")
    helper.assert_error(function() dist.allreduce(fused.ones({ 1 }):expand(2)) end,
                        "distributed.allreduce: argument 't' expected a tensor whose elements do not overlap")
    helper.assert_error(function() dist.broadcast(fused.ones({ 2 }), 1) end,
                        "distributed.broadcast: argument 'root' expected a rank in 0..0, got 1")
    helper.assert_error(function() dist.DataParallel(fused.nn.Linear(2, 2), { bucket = 1 }) end,
                        "distributed.DataParallel: unknown option 'bucket' (expected one of: bucket_bytes)")
    helper.assert_error(function() dist.DataParallel(fused.ones({ 2 })) end,
                        "distributed.DataParallel: argument 'model' expected a fused.nn module, got")
  end)

  it('leaves the gradients of one process as they are', function()
    local linear = fused.nn.Linear(2, 3)
    local dp = dist.DataParallel(linear)
    dp:forward(fused.ones({ 4, 2 }))
    dp:backward(fused.ones({ 4, 3 }))
    helper.assert_close(linear.grad.bias, fused.full({ 3 }, 4), 0)
  end)

  it('under mpirun without libfused_mpi.so, says what is missing', function()
    local status, text = shell("OMPI_COMM_WORLD_SIZE=2 FUSED_MPI_LIB=/nonexistent/libfused_mpi.so "
                               .. "luajit -e \"require('fused').distributed.init()\"")
    assert.are_not.equal(0, status)
    assert.is_truthy(text:find('distributed.init: /nonexistent/libfused_mpi.so did not load', 1, true), text)
    assert.is_truthy(text:find('apt-get install openmpi-bin libopenmpi-dev) and run make', 1, true), text)
  end)
end)

describe('fused.distributed on 2 processes (mpirun)', function()
  teardown(function() os.execute('rm -rf ' .. dir) end)

  mpi_it('allreduce (sum, mean) and broadcast in float32 and float64, strided views too', function()
    local status, text = mpirun('', 'luajit spec/distributed/collectives.lua')
    assert.are.equal(0, status, text)
    assert.is_truthy(text:find('rank 0: collectives ok', 1, true) and text:find('rank 1: collectives ok', 1, true), text)
  end)

  mpi_it('DataParallel: gradients in buckets, started during backward, equal one process\'s', function()
    local status, text = mpirun('', 'luajit spec/distributed/buckets.lua')
    assert.are.equal(0, status, text)
    assert.is_truthy(text:find('rank 0: buckets ok', 1, true) and text:find('rank 1: buckets ok', 1, true), text)
  end)

  mpi_it('when a peer leaves, stops the others with a message within FUSED_DIST_TIMEOUT', function()
    local status, text = mpirun('FUSED_DIST_TIMEOUT=1', 'luajit spec/distributed/dead_peer.lua')
    assert.are_not.equal(0, status)
    assert.is_truthy(text:find('fused.distributed: rank 0 of 2: allreduce of 4000 bytes did not '
                               .. 'complete within 1 s (FUSED_DIST_TIMEOUT): a peer has died or '
                               .. 'stopped calling it', 1, true), text)
    assert.is_falsy(text:find('returned without its peer', 1, true), text)
  end)

  -- Different models would make collectives of different sizes: heap corruption inside MPI.
  local MISMATCHES = {
    hidden = "rank 1's parameter 'rnn.weight_ih_l0' is 64x4 float32 on cpu, rank 0's is 128x4 float32 on cpu",
    dtype = "rank 1's parameter 'rnn.weight_ih_l0' is 128x4 float64 on cpu, rank 0's is 128x4 float32 on cpu",
    cell = "rank 1's parameter 'rnn.weight_ih_l0' is 96x4 float32 on cpu, rank 0's is 128x4 float32 on cpu",
    extra = "rank 1's parameter 'head.weight' is 1x32 float32 on cpu where rank 0's parameter "
      .. "'rnn.weight_ih_l0' is 128x4 float32 on cpu",
  }
  local function mismatch(case, env)
    local status, text = mpirun(env or '', 'luajit spec/distributed/mismatch.lua ' .. case)
    assert.are.equal(0, status, text)
    for rank = 0, 1 do
      local expected = string.format('rank %d: distributed.DataParallel: every rank must hold the '
                                     .. 'same model: %s', rank, MISMATCHES[case])
      assert.is_truthy(text:find(expected, 1, true), text)
    end
  end
  for _, case in ipairs({ 'hidden', 'dtype', 'cell', 'extra' }) do
    mpi_it('DataParallel of different models (' .. case .. '): every rank names the first difference',
           function() mismatch(case) end)
  end
  MISMATCHES.device = "rank 1's parameter 'rnn.weight_ih_l0' is 128x4 float32 on cuda, rank 0's is "
    .. '128x4 float32 on cpu'
  helper.gpu_it('DataParallel of a CUDA model on one rank, a CPU model on the other, names it', function()
    if why_not then pending(why_not) end
    mismatch('device')
  end)

  local TRAIN = '--hidden 16 --seq-len 10 --batch 8 --eval-every 20 --device cpu'

  mpi_it('trains with the losses of one process on the same global batch; resumes on any number',
         function()
    local one, two, resumed = dir .. '/one.csv', dir .. '/two.csv', dir .. '/resumed.csv'
    local ck = dir .. '/ck.safetensors'
    local status, text = shell('luajit examples/train.lua --steps 40 --log ' .. one .. ' ' .. TRAIN)
    assert.are.equal(0, status, text)
    status, text = mpirun('', 'luajit examples/train.lua --steps 40 --log ' .. two .. ' ' .. TRAIN)
    assert.are.equal(0, status, text)
    assert.is_truthy(text:find('data parallel: 2 processes (MPI), 4 sequences each', 1, true), text)
    local _, printed = text:gsub('baseline %(', '')
    assert.are.equal(1, printed, 'rank 0 alone prints: ' .. text)
    -- mpirun's processes write to a pseudo-terminal, but its output goes to a file: no redraws.
    assert.is_falsy(text:find('\r', 1, true), text)
    assert.is_truthy(text:find('\nstep 20/40  loss [^\n]+\nstep 40/40  loss '), text)
    -- 20 steps on 2 processes, the next 20 on one from the checkpoint.
    status, text = mpirun('', 'luajit examples/train.lua --steps 20 --checkpoint ' .. ck .. ' ' .. TRAIN)
    assert.are.equal(0, status, text)
    status, text = shell('luajit examples/train.lua --steps 40 --resume ' .. ck .. ' --log ' .. resumed
                         .. ' ' .. TRAIN)
    assert.are.equal(0, status, text)
    local single, parallel, continued = logged(one), logged(two), logged(resumed)
    for step = 1, 40 do
      local rel = math.abs(parallel[step] - single[step]) / math.abs(single[step])
      assert(rel <= 1e-4, string.format('step %d: loss %.9g on 2 processes, %.9g on one', step,
                                        parallel[step], single[step]))
      if step > 20 then
        rel = math.abs(continued[step] - single[step]) / math.abs(single[step])
        assert(rel <= 1e-4, string.format('step %d: resumed loss %.9g, %.9g uninterrupted', step,
                                          continued[step], single[step]))
      end
    end
  end)

  mpi_it('a --batch that does not split evenly is a usage error', function()
    local status, text = mpirun('', 'luajit examples/train.lua --steps 1 --batch 5 --device cpu')
    assert.are_not.equal(0, status)
    assert.is_truthy(text:find("option '--batch' expected a multiple of the 2 processes, got 5", 1, true), text)
  end)

  helper.gpu_it('NCCL: allreduce, broadcast and DataParallel of CUDA tensors (one GPU a process)',
                function()
    if why_not then pending(why_not) end
    local status, text = mpirun('', "sh -c 'CUDA_VISIBLE_DEVICES=$OMPI_COMM_WORLD_LOCAL_RANK "
                                .. "exec luajit spec/distributed/nccl.lua'")
    assert.are.equal(0, status, text)
    assert.is_truthy(text:find('rank 1: nccl ok', 1, true), text)
  end)
end)
