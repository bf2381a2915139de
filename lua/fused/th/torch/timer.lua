-- torch.Timer(): Torch7's stopwatch. time() gives {real =, user =, sys =} in seconds since it
-- was made or reset, not counting while stopped; stop(), resume(), reset().
local ffi = require 'ffi'

pcall(ffi.cdef, [[
typedef struct { long tv_sec; long tv_nsec; } fused_th_timespec;
int clock_gettime(int clk_id, fused_th_timespec *tp);
]])
local now_t = ffi.new('fused_th_timespec')
local CLOCK_MONOTONIC = 1

local function wall()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, now_t)
  return tonumber(now_t.tv_sec) + tonumber(now_t.tv_nsec) * 1e-9
end

local Timer = {}
Timer.__index = Timer

local function new()
  local t = setmetatable({}, Timer)
  return t:reset()
end

local function now() return { real = wall(), user = os.clock() } end

function Timer:reset()
  self.start, self.total, self.running = now(), { real = 0, user = 0 }, true
  return self
end

function Timer:stop()
  if self.running then
    local n = now()
    self.total.real = self.total.real + n.real - self.start.real
    self.total.user = self.total.user + n.user - self.start.user
    self.running = false
  end
  return self
end

function Timer:resume()
  if not self.running then self.start, self.running = now(), true end
  return self
end

function Timer:time()
  local real, user = self.total.real, self.total.user
  if self.running then
    local n = now()
    real, user = real + n.real - self.start.real, user + n.user - self.start.user
  end
  return { real = real, user = user, sys = 0 }
end

return setmetatable({}, { __call = function() return new() end, __index = Timer })
