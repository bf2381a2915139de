-- The progress of a training run: the time spent, the throughput of the training steps alone
-- (evaluations and saves left out), the ETA, and a progress line that redraws in place on a
-- terminal; elsewhere (a file, a pipe, or under mpirun, whose processes write to a pseudo-
-- terminal even when its own output goes to a file) one line per evaluation and nothing else.
--
--   local progress = Progress.new(out, {steps = 1000, first = 1, tokens_per_step = 6400})
--   progress:start(); <a training step>; progress:stop()
--   progress:show(step, loss, heldout, final)   -- final: keep this line (an evaluation)
local ffi = require 'ffi'
local distributed = require 'fused.distributed'

local M = {}
local Progress = {}
Progress.__index = Progress

-- One declaration per cdef: another module may have declared one of them already.
pcall(ffi.cdef, 'int isatty(int fd);')
pcall(ffi.cdef, 'typedef struct { long tv_sec; long tv_nsec; } fused_timespec;')
pcall(ffi.cdef, 'int clock_gettime(int clock_id, fused_timespec *ts);')

local now_ts = ffi.new('fused_timespec')

-- Seconds of monotonic wall time.
function M.now()
  ffi.C.clock_gettime(1, now_ts) -- CLOCK_MONOTONIC
  return tonumber(now_ts.tv_sec) + tonumber(now_ts.tv_nsec) * 1e-9
end

-- '42s', '3m07s', '2h05m'; '?' for an unknown duration.
function M.duration(s)
  if s ~= s or s == math.huge then return '?' end
  if s < 60 then return string.format('%.0fs', s) end
  if s < 3600 then return string.format('%dm%02ds', math.floor(s / 60), math.floor(s % 60)) end
  return string.format('%dh%02dm', math.floor(s / 3600), math.floor(s % 3600 / 60))
end

-- run: steps (the last step), first (the first step of this run), tokens_per_step.
function M.new(out, run)
  local is_tty = out == io.stdout and ffi.C.isatty(1) == 1 and not distributed.launcher()
  return setmetatable({ out = out, is_tty = is_tty,
                        steps = run.steps, first = run.first, tokens_per_step = run.tokens_per_step,
                        t0 = M.now(), training = 0, last_len = 0 }, Progress)
end

function Progress:start() self.started = M.now() end
function Progress:stop() self.training = self.training + (M.now() - self.started) end

-- Seconds since new().
function Progress:elapsed() return M.now() - self.t0 end

-- Tokens per second of training after `step`.
function Progress:rate(step)
  return (step - self.first + 1) * self.tokens_per_step / self.training
end

-- Writes line: on a terminal over the previous one (final: then a newline), elsewhere only
-- when final.
function Progress:line(line, final)
  if self.is_tty then
    local blank = string.rep(' ', math.max(0, self.last_len - #line)) -- over the longer last line
    self.out:write('\r', line, blank, final and '\n' or '')
    self.last_len = final and 0 or #line
    self.out:flush()
  elseif final and line ~= '' then
    self.out:write(line, '\n')
    self.out:flush()
  end
end

function Progress:show(step, loss, heldout, final)
  local eta = (self.steps - step) * self:elapsed() / (step - self.first + 1)
  self:line(string.format('step %d/%d  loss %.4f  held-out %s  %.0f tok/s  ETA %s', step,
                          self.steps, loss, heldout and string.format('%.4f', heldout) or '-',
                          self:rate(step), M.duration(eta)), final)
end

return M
