-- nn.TemporalConvolution(inputFrameSize, outputFrameSize, kW[, dW]): a 1-D convolution over
-- a sequence of frames (nInputFrame x inputFrameSize, or a batch of them), weight
-- outputFrameSize x (kW inputFrameSize) as Torch7's. The kW frames one output reads lie next
-- to each other in memory, so the columns are one strided view of the input; the backward
-- adds each frame offset's part back through a view of its own (those never overlap).
local ffi = require 'ffi'
local fused = require 'fused'
local tensor = require 'fused.tensor'
local class = require 'fused.th.class'
local util = require 'fused.th.nn.util'
local nn = require 'fused.th.nn.namespace'

local TC = class.class('nn.TemporalConvolution', 'nn.Module', nn)

function TC:__init(inputFrameSize, outputFrameSize, kW, dW)
  nn.Module.__init(self)
  self.inputFrameSize, self.outputFrameSize, self.kW, self.dW = inputFrameSize, outputFrameSize, kW, dW or 1
  local opts = util.options()
  self.weight = fused.empty({ outputFrameSize, inputFrameSize * kW }, opts)
  self.gradWeight = fused.zeros({ outputFrameSize, inputFrameSize * kW }, opts)
  self.bias, self.gradBias = fused.empty({ outputFrameSize }, opts), fused.zeros({ outputFrameSize }, opts)
  self:reset()
end

function TC:reset(stdv)
  stdv = stdv and stdv * math.sqrt(3) or 1 / math.sqrt(self.kW * self.inputFrameSize)
  self.weight:uniform_(-stdv, stdv)
  self.bias:uniform_(-stdv, stdv)
end

-- The input as a contiguous batch (B x T x F), whether it was one, and the output frames.
local function frames(self, input)
  local d = util.is_tensor(input) and input:dim()
  if d ~= 2 and d ~= 3 then
    error('nn.TemporalConvolution: input expected 2 (frames x features) or 3 dims (a batch), got '
          .. (d and d .. ' dims' or type(input)), 4)
  end
  local x = (d == 2 and input:unsqueeze(1) or input):contiguous()
  if x:size(3) ~= self.inputFrameSize then
    error(string.format('nn.TemporalConvolution: input expected frames of %d features, got %d', self.inputFrameSize, x:size(3)), 4)
  end
  local n = math.floor((x:size(2) - self.kW) / self.dW) + 1
  if n < 1 then
    error(string.format('nn.TemporalConvolution: %d input frames are fewer than the kernel (%d)', x:size(2), self.kW), 4)
  end
  return x, d == 2, n
end

-- B x n x width: frames t dW + offset .. , width features from each start.
local function strided(x, n, dW, width, offset)
  local F, T = x:size(3), x:size(2)
  local sizes = ffi.new('int64_t[3]', x:size(1), n, width)
  local strides = ffi.new('int64_t[3]', T * F, dW * F, 1)
  return tensor.make_view(x, 3, sizes, strides, offset * F)
end

function TC:updateOutput(input)
  local x, single, n = frames(self, input)
  local cols = strided(x, n, self.dW, self.kW * self.inputFrameSize, 0):contiguous():view(-1, self.kW * self.inputFrameSize)
  local out = fused.addmm(self.bias, cols, self.weight:t()):view(x:size(1), n, self.outputFrameSize)
  self.output = single and out:squeeze(1) or out
  return self.output
end

function TC:updateGradInput(input, gradOutput)
  local x, single, n = frames(self, input)
  local F = self.inputFrameSize
  local g = (single and gradOutput:unsqueeze(1) or gradOutput):contiguous():view(-1, self.outputFrameSize)
  local gcols = fused.matmul(g, self.weight):view(x:size(1), n, self.kW * F)
  local gi = fused.zeros(x:shape(), { dtype = x.dtype, device = x.device })
  for k = 0, self.kW - 1 do strided(gi, n, self.dW, F, k):add_(gcols:narrow(3, k * F + 1, F)) end
  self.gradInput = single and gi:squeeze(1) or gi
  return self.gradInput
end

function TC:accGradParameters(input, gradOutput, scale)
  local x, single, n = frames(self, input)
  local cols = strided(x, n, self.dW, self.kW * self.inputFrameSize, 0):contiguous():view(-1, self.kW * self.inputFrameSize)
  local g = (single and gradOutput:unsqueeze(1) or gradOutput):contiguous():view(-1, self.outputFrameSize)
  self.gradWeight:addmm_(g:t(), cols, { alpha = scale or 1 })
  self.gradBias:add_(fused.sum(g, 1):view(-1), { alpha = scale or 1 })
end
