-- make soak: 10,000 steps of examples/train.lua's default job (the adding problem, LLTM 64,
-- Adam), with resident memory sampled at the first step, half way and the last. Fails when the
-- second half grew it by more than GROWTH_MB: the same work as the first half, after warm-up,
-- so a leak of 3.4 KB a step (16 MB over 5,000 steps) fails, while the allocator's noise (under
-- 1 MB once trimmed) passes. Takes minutes (about 50 ms a step on one core).
local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
local ffi = require 'ffi'
local train = dofile(here .. '../examples/train.lua')

local STEPS, GROWTH_MB = 10000, 16
local PAGE_BYTES = tonumber(io.popen('getconf PAGESIZE'):read('*l'))

-- Resident memory in MB once the collector has freed what it can and malloc has handed its free
-- pages back: what a leak would hold, without the high-water mark between collections.
ffi.cdef('int malloc_trim(size_t pad);')
local function resident_mb()
  collectgarbage()
  collectgarbage() -- a second pass frees what the first one's finalizers released
  ffi.C.malloc_trim(0)
  local f = assert(io.open('/proc/self/statm'))
  local pages = tonumber(f:read('*a'):match('^%d+ (%d+)'))
  f:close()
  return pages * PAGE_BYTES / 2 ^ 20
end

local samples, names = {}, { [1] = 'start', [STEPS / 2] = 'middle', [STEPS] = 'end' }
local status = train.run({ '--steps', tostring(STEPS) }, {
  on_step = function(step)
    if names[step] then
      samples[#samples + 1] = resident_mb()
      io.write(string.format('soak: resident memory at step %d (%s): %.1f MB\n', step, names[step],
                             samples[#samples]))
    end
  end,
})
assert(status == 0, 'soak: train.lua ended with status ' .. status)
local growth = samples[3] - samples[2]
io.write(string.format('soak: %.1f -> %.1f -> %.1f MB; the second half grew it by %.1f MB (bound %d MB)\n',
                       samples[1], samples[2], samples[3], growth, GROWTH_MB))
if growth > GROWTH_MB then
  io.stderr:write('soak: FAILED: resident memory grew by more than ', GROWTH_MB, ' MB\n')
  os.exit(1)
end
