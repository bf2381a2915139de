-- Random fills, c/ops/random.c's: t:uniform_(low, high), t:normal_(mean, std) (Torch7's
-- t:uniform(), t:normal() the same functions) and fused.manual_seed. M.uniform and M.normal are
-- the C calls for the factories rand and randn.
local ffi = require 'ffi'
local lib = require 'fused.lib'
local tensor = require 'fused.tensor'
local argcheck = require 'fused.check'
local blame = require 'fused.blame'

local C = lib.C
local Tensor = tensor.Tensor
local expect_writable, expect_number, c_status = argcheck.expect_writable, argcheck.expect_number,
  argcheck.c_status
local M = {}

function M.uniform(t, low, high) c_status(C.fused_uniform(t, low, high)) end
function M.normal(t, mean, std) c_status(C.fused_normal(t, mean, std)) end

-- t:uniform_(low = 0, high = 1) and t:normal_(mean = 0, std = 1) draw into t in place.
local function drawing(name, draw, a_name, a_default, b_name, b_default)
  Tensor[name] = function(t, a, b)
    expect_writable(t, name, 'self')
    a, b = a or a_default, b or b_default
    expect_number(a, name, a_name); expect_number(b, name, b_name)
    draw(t, a, b)
    return t
  end
end
drawing('uniform_', M.uniform, 'low', 0, 'high', 1)
drawing('normal_', M.normal, 'mean', 0, 'std', 1)

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
    blame("manual_seed: argument 'seed' expected an integer in [0, 2^53] (or a uint64_t cdata "
          .. "for larger seeds), got " .. (type(seed) == 'number' and tostring(seed) or argcheck.type_name(seed)))
  end
  C.fused_manual_seed(seed)
end
M.manual_seed = argcheck.no_extra('manual_seed', M.manual_seed)

return M
