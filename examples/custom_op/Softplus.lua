-- nn.Softplus from the C of this folder, compiled on first use by fused.ext.load (cached
-- afterwards), or the library `make` built here ahead of time when it is there.
--
--   local Softplus = dofile('examples/custom_op/Softplus.lua')
--   local y = Softplus():forward(x); local d_x = m:backward(d_y)
local ffi = require 'ffi'
local fused = require 'fused'
local Module = require 'fused.nn.Module'

local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'

local function build()
  local sources, cflags = { here .. 'softplus.c', here .. 'softplus.h' }, {}
  if fused.ext.has_cuda() then sources[#sources + 1] = here .. 'softplus.cu'
  else cflags[1] = '-DSOFTPLUS_NO_CUDA' end
  return fused.ext.load { name = 'softplus', sources = sources, cflags = cflags,
                          verbose = os.getenv('FUSED_EXT_VERBOSE') ~= nil }
end

-- Ahead of time: `make -C examples/custom_op` leaves libsoftplus.so here.
local function prebuilt()
  local f = io.open(here .. 'libsoftplus.so', 'rb')
  if not f then return nil end
  f:close()
  local text = io.open(here .. 'softplus.h'):read('*a')
  ffi.cdef(text:match('/%* ffi%-begin %*/(.-)/%* ffi%-end %*/'))
  return ffi.load(here .. 'libsoftplus.so')
end

local C = os.getenv('SOFTPLUS_PREBUILT') and prebuilt() or build()
local check = fused.ext.check

local Softplus = Module:extend('Softplus')
Softplus.C = C -- kept alive with the class

function Softplus:forward(x)
  require('fused.check').expect(x, 'Softplus:forward', 'input')
  local y = self:buffer_shaped('output', x:shape(), x)
  check(C.softplus_forward(y, x))
  self.buffers.output, self.saved = y, { input = x }
  return y
end

function Softplus:backward(d_y)
  local x = self:expect_saved().input
  self:expect_d_output(d_y, x:shape(), 'Softplus:backward')
  local d_x = self:buffer_shaped('gradInput', x:shape(), x)
  check(C.softplus_backward(d_x, d_y, x))
  self.buffers.gradInput = d_x
  return d_x
end

return Softplus
