-- torch.Timer(): Torch7's stopwatch. time() gives {real =, user =, sys =} in seconds since it
-- was made or reset, not counting while stopped; stop(), resume(), reset().
-- Wall time: the monotonic clock that training's progress reads.
local wall = require('fused.train.progress').now

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
