-- Random fills, c/ops/random.c's: t:uniform_(low, high), t:normal_(mean, std) (Torch7's
-- t:uniform(), t:normal() the same functions) and fused.manual_seed. M.uniform and M.normal are
-- the C calls for the factories rand and randn.
local ffi = require 'ffi'
local lib = require 'fused.lib'
local tensor = require 'fused.tensor'
local argcheck = require 'fused.check'

local C = lib.C
local Tensor = tensor.Tensor
local expect_writable, expect_number, c_status = argcheck.expect_writable, argcheck.expect_number,
  argcheck.c_status
local M = {}

function M.uniform(t, low, high) c_status(C.fused_uniform(t, low, high)) end
function M.normal(t, mean, std) c_status(C.fused_normal(t, mean, std)) end

function Tensor.uniform_(t, low, high)
  expect_writable(t, 'uniform_', 'self')
  low, high = low or 0, high or 1
  expect_number(low, 'uniform_', 'low'); expect_number(high, 'uniform_', 'high')
  M.uniform(t, low, high)
  return t
end

function Tensor.normal_(t, mean, std)
  expect_writable(t, 'normal_', 'self')
  mean, std = mean or 0, std or 1
  expect_number(mean, 'normal_', 'mean'); expect_number(std, 'normal_', 'std')
  M.normal(t, mean, std)
  return t
end

Tensor.uniform, Tensor.normal = Tensor.uniform_, Tensor.normal_

-- The generator takes a uint64_t seed. A Lua number is exact up to 2^53 (above it, 2^64 would
-- wrap to 0 and nearby seeds would collide), so larger seeds come as uint64_t/int64_t cdata.
local uint64_t, int64_t = ffi.typeof('uint64_t'), ffi.typeof('int64_t')
function M.manual_seed(seed)
  local ok
  if type(seed) == 'number' then
    ok = seed >= 0 and seed <= 2 ^ 53 and seed == math.floor(seed)
  else
    ok = ffi.istype(uint64_t, seed) or ffi.istype(int64_t, seed) and seed >= 0
  end
  if not ok then
    error("manual_seed: argument 'seed' expected an integer in [0, 2^53] (or a uint64_t cdata "
          .. "for larger seeds), got " .. (type(seed) == 'number' and tostring(seed) or argcheck.type_name(seed)), 2)
  end
  C.fused_manual_seed(seed)
end

return M
