-- Torch7's `cutorch` inside `fused th`: fused's CUDA device (the emulator where
-- FUSED_CUDA_EMULATOR=1 and no GPU answers); require fails with the reason where there is none,
-- so that a program's `pcall(require, 'cutorch')` falls back to the CPU as written.
local fused = require 'fused'
local types = require 'fused.th.torch.types'

local cuda = fused.cuda
if not (cuda.is_available() or cuda.is_emulated()) then
  error("cutorch: no CUDA device: " .. cuda.why(), 0)
end

local cutorch = {}

function cutorch.synchronize() cuda.synchronize() end
function cutorch.getDeviceCount() return 1 end
function cutorch.getDevice() return 1 end
function cutorch.setDevice(i)
  if i ~= 1 then error(string.format("cutorch.setDevice: fused uses one device, 1; got %s", tostring(i)), 2) end
end
function cutorch.manualSeed(seed) fused.manual_seed(seed) end
function cutorch.manualSeedAll(seed) fused.manual_seed(seed) end
function cutorch.getMemoryUsage()
  local s = cuda.memory_stats()
  return s.reserved - s.in_use, s.reserved
end
function cutorch.getDeviceProperties() return { name = cuda.why() } end

-- torch.CudaTensor and the other CUDA classes are torch's (th/torch/types.lua).
local torch = require 'torch'
for name in pairs(types.CLASSES) do
  local short = name:match('^torch%.(Cuda.*)$')
  if short then cutorch[short] = torch[short] end
end

return cutorch
