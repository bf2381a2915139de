-- The 2-D convolution and pooling of Torch7's nn over inputs of planes x height x width or a
-- batch of them: nn.SpatialConvolution (weight nOutputPlane x nInputPlane x kH x kW),
-- nn.SpatialConvolutionMM (the same weight as one nOutputPlane x (nInputPlane kH kW)
-- matrix), nn.SpatialMaxPooling and nn.SpatialAveragePooling (ceil() and floor() sizes). The input, padded, is seen
-- through kH kW strided views, one per kernel offset (each B x C x oH x oW): the convolution
-- copies them into columns for one matrix product (im2col), its backward adds the columns'
-- gradient back through the same views.
local ffi = require 'ffi'
local fused = require 'fused'
local tensor = require 'fused.tensor'
local class = require 'fused.th.class'
local util = require 'fused.th.nn.util'
local nn = require 'fused.th.nn.namespace'

-- The input as a batch (B x C x H x W) and whether it was one.
local function batched(fn, input, planes)
  local d = util.is_tensor(input) and input:dim()
  if d ~= 3 and d ~= 4 then
    error(string.format('%s: input expected 3 (planes x height x width) or 4 dims (a batch), got %s', fn,
                        d and d .. ' dims' or type(input)), 4)
  end
  local x = d == 3 and input:unsqueeze(1) or input
  if planes and x:size(2) ~= planes then
    error(string.format('%s: input expected %d planes, got %d', fn, planes, x:size(2)), 4)
  end
  return x:contiguous(), d == 3
end

-- x (B x C x H x W) padded by padH rows above, padH + extraH below, padW (+ extraW) columns,
-- with value.
local function padded(x, padH, padW, value, extraH, extraW)
  extraH, extraW = extraH or 0, extraW or 0
  if padH == 0 and padW == 0 and extraH == 0 and extraW == 0 then return x end
  local B, C, H, W = unpack(x:shape())
  local xp = fused.full({ B, C, H + 2 * padH + extraH, W + 2 * padW + extraW }, value, { dtype = x.dtype, device = x.device })
  xp:narrow(3, padH + 1, H):narrow(4, padW + 1, W):copy_(x)
  return xp
end

-- The view of xp (contiguous B x C x Hp x Wp) that kernel offset (ki, kj), from 0, reads: B x
-- C x oH x oW, rows ki, ki + dH, ... and columns kj, kj + dW, ...
local function window(xp, ki, kj, dH, dW, oH, oW)
  local s = xp:stride()
  local sizes = ffi.new('int64_t[4]', xp:size(1), xp:size(2), oH, oW)
  local strides = ffi.new('int64_t[4]', s[1], s[2], s[3] * dH, s[4] * dW)
  return tensor.make_view(xp, 4, sizes, strides, ki * s[3] + kj * s[4])
end

local function output_size(fn, size, k, d, pad, ceil)
  local span = size + 2 * pad - k
  local o = (ceil and math.ceil(span / d) or math.floor(span / d)) + 1
  if ceil and pad > 0 and (o - 1) * d >= size + pad then o = o - 1 end -- the last window starts inside
  if o < 1 then
    error(string.format('%s: the input (%d) is too small for the kernel (%d, padding %d): output size %d', fn, size, k, pad, o), 4)
  end
  return o
end

-- Convolutions -------------------------------------------------------------------------------

local function convolution(name, weight_shape)
  local cls = class.class('nn.' .. name, 'nn.Module', nn)
  local fn = 'nn.' .. name

  function cls:__init(nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH)
    nn.Module.__init(self)
    self.nInputPlane, self.nOutputPlane, self.kW, self.kH = nInputPlane, nOutputPlane, kW, kH
    self.dW, self.dH = dW or 1, dH or 1
    self.padW = padW or 0
    self.padH = padH or self.padW
    local opts, shape = util.options(), weight_shape(nInputPlane, nOutputPlane, kH, kW)
    self.weight, self.gradWeight = fused.empty(shape, opts), fused.zeros(shape, opts)
    self.bias, self.gradBias = fused.empty({ nOutputPlane }, opts), fused.zeros({ nOutputPlane }, opts)
    self:reset()
  end

  function cls:noBias()
    self.bias, self.gradBias = nil, nil
    return self
  end

  function cls:reset(stdv)
    stdv = stdv and stdv * math.sqrt(3) or 1 / math.sqrt(self.kW * self.kH * self.nInputPlane)
    self.weight:uniform_(-stdv, stdv)
    if self.bias then self.bias:uniform_(-stdv, stdv) end
    return self
  end

  -- The columns (C kH kW) x (B oH oW) of x's windows, and the sizes.
  local function columns(self, x)
    local B, C, H, W = unpack(x:shape())
    local oH = output_size(fn, H, self.kH, self.dH, self.padH)
    local oW = output_size(fn, W, self.kW, self.dW, self.padW)
    local xp = padded(x, self.padH, self.padW, 0)
    local cols = fused.empty({ C, self.kH, self.kW, B, oH, oW }, { dtype = x.dtype, device = x.device })
    for ki = 0, self.kH - 1 do
      for kj = 0, self.kW - 1 do
        cols:select(2, ki + 1):select(2, kj + 1):copy_(window(xp, ki, kj, self.dH, self.dW, oH, oW):transpose(1, 2))
      end
    end
    return cols:view(C * self.kH * self.kW, B * oH * oW), B, oH, oW
  end

  local function matrix(self) return self.weight:view(self.nOutputPlane, -1) end

  -- gradOutput (B x nOut x oH x oW) as nOut x (B oH oW), the columns' order.
  local function gradient_rows(gradOutput) return gradOutput:transpose(1, 2):contiguous():view(gradOutput:size(2), -1) end

  function cls:updateOutput(input)
    local x, single = batched(fn, input, self.nInputPlane)
    local cols, B, oH, oW = columns(self, x)
    local out = fused.matmul(matrix(self), cols):view(self.nOutputPlane, B, oH, oW):transpose(1, 2)
    if self.bias then out = fused.add(out, self.bias:view(1, -1, 1, 1)) else out = out:contiguous() end
    self.output = single and out:squeeze(1) or out
    return self.output
  end

  function cls:updateGradInput(input, gradOutput)
    local x, single = batched(fn, input, self.nInputPlane)
    local B, C, H, W = unpack(x:shape())
    local g = single and gradOutput:unsqueeze(1) or gradOutput
    local oH, oW = g:size(3), g:size(4)
    local gcols = fused.matmul(matrix(self):t(), gradient_rows(g)):view(C, self.kH, self.kW, B, oH, oW)
    local gp = fused.zeros({ B, C, H + 2 * self.padH, W + 2 * self.padW }, { dtype = x.dtype, device = x.device })
    for ki = 0, self.kH - 1 do
      for kj = 0, self.kW - 1 do
        window(gp, ki, kj, self.dH, self.dW, oH, oW):add_(gcols:select(2, ki + 1):select(2, kj + 1):transpose(1, 2))
      end
    end
    local gi = gp:narrow(3, self.padH + 1, H):narrow(4, self.padW + 1, W):contiguous()
    self.gradInput = single and gi:squeeze(1) or gi
    return self.gradInput
  end

  function cls:accGradParameters(input, gradOutput, scale)
    scale = scale or 1
    local x = batched(fn, input, self.nInputPlane)
    local cols = columns(self, x)
    local rows = gradient_rows(gradOutput:dim() == 3 and gradOutput:unsqueeze(1) or gradOutput)
    self.gradWeight:view(self.nOutputPlane, -1):addmm_(rows, cols:t(), { alpha = scale })
    if self.bias then self.gradBias:add_(fused.sum(rows, 2):view(-1), { alpha = scale }) end
  end

  function cls:__tostring__()
    local s = string.format('%s(%d -> %d, %dx%d', fn, self.nInputPlane, self.nOutputPlane, self.kW, self.kH)
    if self.dW ~= 1 or self.dH ~= 1 or self.padW ~= 0 or self.padH ~= 0 then s = s .. string.format(', %d,%d', self.dW, self.dH) end
    if self.padW ~= 0 or self.padH ~= 0 then s = s .. string.format(', %d,%d', self.padW, self.padH) end
    return s .. ')'
  end
end

convolution('SpatialConvolution', function(nIn, nOut, kH, kW) return { nOut, nIn, kH, kW } end)
convolution('SpatialConvolutionMM', function(nIn, nOut, kH, kW) return { nOut, nIn * kH * kW } end)

-- Max pooling --------------------------------------------------------------------------------

local Pool = class.class('nn.SpatialMaxPooling', 'nn.Module', nn)

function Pool:__init(kW, kH, dW, dH, padW, padH)
  nn.Module.__init(self)
  self.kW, self.kH = kW, kH
  self.dW, self.dH = dW or kW, dH or kH
  self.padW, self.padH = padW or 0, padH or 0
  self.ceil_mode = false
end

function Pool:ceil()
  self.ceil_mode = true
  return self
end

function Pool:floor()
  self.ceil_mode = false
  return self
end

-- The sizes out, and the padding below and right that the last windows reach past the input.
local function pool_sizes(self, x)
  local H, W, fn = x:size(3), x:size(4), class.typename(self)
  local oH = output_size(fn, H, self.kH, self.dH, self.padH, self.ceil_mode)
  local oW = output_size(fn, W, self.kW, self.dW, self.padW, self.ceil_mode)
  local extraH = math.max(0, (oH - 1) * self.dH + self.kH - (H + 2 * self.padH))
  local extraW = math.max(0, (oW - 1) * self.dW + self.kW - (W + 2 * self.padW))
  return oH, oW, extraH, extraW
end

function Pool:updateOutput(input)
  local x, single = batched('nn.SpatialMaxPooling', input)
  local oH, oW, extraH, extraW = pool_sizes(self, x)
  local xp = padded(x, self.padH, self.padW, -math.huge, extraH, extraW)
  local best, at = nil, nil
  for ki = 0, self.kH - 1 do
    for kj = 0, self.kW - 1 do
      local v, k = window(xp, ki, kj, self.dH, self.dW, oH, oW), ki * self.kW + kj + 1
      if not best then
        best, at = v:clone(), fused.full(v:shape(), k, { dtype = 'int64', device = v.device })
      else
        local larger = fused.gt(v, best)
        best, at = fused.where(larger, v, best), fused.where(larger, k, at)
      end
    end
  end
  self.indices = at -- the kernel offset (from 1, row-major) of each output's maximum
  self.output = single and best:squeeze(1) or best
  return self.output
end

function Pool:updateGradInput(input, gradOutput)
  local x, single = batched('nn.SpatialMaxPooling', input)
  local B, C, H, W = unpack(x:shape())
  local oH, oW, extraH, extraW = pool_sizes(self, x)
  local g = single and gradOutput:unsqueeze(1) or gradOutput
  local gp = fused.zeros({ B, C, H + 2 * self.padH + extraH, W + 2 * self.padW + extraW }, { dtype = x.dtype, device = x.device })
  for ki = 0, self.kH - 1 do
    for kj = 0, self.kW - 1 do
      local taken = fused.eq(self.indices, ki * self.kW + kj + 1)
      window(gp, ki, kj, self.dH, self.dW, oH, oW):add_(fused.mul(g, taken))
    end
  end
  local gi = gp:narrow(3, self.padH + 1, H):narrow(4, self.padW + 1, W):contiguous()
  self.gradInput = single and gi:squeeze(1) or gi
  return self.gradInput
end

function Pool:__tostring__()
  local s = string.format('nn.SpatialMaxPooling(%dx%d, %d,%d', self.kW, self.kH, self.dW, self.dH)
  if self.padW ~= 0 or self.padH ~= 0 then s = s .. string.format(', %d,%d', self.padW, self.padH) end
  return s .. ')'
end

-- Average pooling ----------------------------------------------------------------------------

-- nn.SpatialAveragePooling(kW, kH[, dW, dH, padW, padH]): each window's mean; the divisor counts
-- the padding (count_include_pad, Torch7's default; setCountExcludePad() counts the input only),
-- never the part of a ceil() window past the padding, as THNN's.
local Avg = class.class('nn.SpatialAveragePooling', 'nn.Module', nn)

function Avg:__init(kW, kH, dW, dH, padW, padH)
  nn.Module.__init(self)
  self.kW, self.kH = kW, kH
  self.dW, self.dH = dW or 1, dH or 1
  self.padW, self.padH = padW or 0, padH or 0
  self.ceil_mode, self.count_include_pad, self.divide = false, true, true
end

Avg.ceil, Avg.floor = Pool.ceil, Pool.floor

function Avg:setCountIncludePad()
  self.count_include_pad = true
  return self
end

function Avg:setCountExcludePad()
  self.count_include_pad = false
  return self
end

-- The sum of each window of xp (B x C x Hp x Wp, 0 outside the input) into B x C x oH x oW.
local function window_sums(self, xp, oH, oW)
  local sum
  for ki = 0, self.kH - 1 do
    for kj = 0, self.kW - 1 do
      local v = window(xp, ki, kj, self.dH, self.dW, oH, oW)
      sum = sum and sum:add_(v) or v:clone()
    end
  end
  return sum
end

-- Each window's divisor (1 x 1 x oH x oW), or 1 when divide is off.
local function divisors(self, x, oH, oW, extraH, extraW)
  if self.divide == false then return 1 end
  local H, W = x:size(3), x:size(4)
  local counted = fused.ones({ 1, 1, H, W }, { dtype = x.dtype, device = x.device })
  local mask = padded(counted, self.padH, self.padW, self.count_include_pad and 1 or 0, extraH, extraW)
  if extraH > 0 then mask:narrow(3, mask:size(3) - extraH + 1, extraH):zero_() end
  if extraW > 0 then mask:narrow(4, mask:size(4) - extraW + 1, extraW):zero_() end
  return window_sums(self, mask, oH, oW)
end

function Avg:updateOutput(input)
  local x, single = batched('nn.SpatialAveragePooling', input)
  local oH, oW, extraH, extraW = pool_sizes(self, x)
  local sums = window_sums(self, padded(x, self.padH, self.padW, 0, extraH, extraW), oH, oW)
  local out = fused.div(sums, divisors(self, x, oH, oW, extraH, extraW))
  self.output = single and out:squeeze(1) or out
  return self.output
end

function Avg:updateGradInput(input, gradOutput)
  local x, single = batched('nn.SpatialAveragePooling', input)
  local B, C, H, W = unpack(x:shape())
  local oH, oW, extraH, extraW = pool_sizes(self, x)
  local g = fused.div(single and gradOutput:unsqueeze(1) or gradOutput, divisors(self, x, oH, oW, extraH, extraW))
  local gp = fused.zeros({ B, C, H + 2 * self.padH + extraH, W + 2 * self.padW + extraW }, { dtype = x.dtype, device = x.device })
  for ki = 0, self.kH - 1 do
    for kj = 0, self.kW - 1 do window(gp, ki, kj, self.dH, self.dW, oH, oW):add_(g) end
  end
  local gi = gp:narrow(3, self.padH + 1, H):narrow(4, self.padW + 1, W):contiguous()
  self.gradInput = single and gi:squeeze(1) or gi
  return self.gradInput
end
