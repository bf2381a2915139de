-- A causal scaled dot-product attention block written in Lua from fused's ops with a forward
-- only (issue 36): the projections, the heads' masked softmax, the residual and a LayerNorm,
-- trained 5 SGD steps on an MSE loss. spec/golden/attention/make.py trained PyTorch's
-- nn.MultiheadAttention (causal attn_mask) and nn.LayerNorm the same way in float64, from the
-- same initial weights: every gradient (the input's too) and loss equal within 1e-10.
local helper = require 'spec.helper'
local fused = helper.fused
local nn = fused.nn

local dir = helper.golden .. '/attention/'
local o = { dtype = 'float64' }
local HEADS, STEPS, LR = 2, 5, 0.05

-- PyTorch's nn.MultiheadAttention(d, heads, batch_first = True) with a causal mask, from ops.
local Attention = nn.Module:extend('CausalSelfAttention')
function Attention:__init(d, heads)
  self.heads = heads
  self:parameter('in_proj_weight', { 3 * d, d }, o)
  self:parameter('in_proj_bias', { 3 * d }, o)
  self.out_proj = nn.Linear(d, d, o) -- a built-in module: its own backward, one node on the tape
end

function Attention:forward(x) -- B x T x D
  local B, T, D = x:size(1), x:size(2), x:size(3)
  local h = self.heads
  local dh = D / h
  local qkv = fused.addmm(self.in_proj_bias, x:reshape(B * T, D), self.in_proj_weight:t()):chunk(3, 2)
  local function split_heads(t) return t:reshape(B, T, h, dh):transpose(2, 3):reshape(B * h, T, dh) end
  local q, k, v = split_heads(qkv[1]), split_heads(qkv[2]), split_heads(qkv[3])
  local position = fused.arange(1, T + 1)
  local future = position:view(1, T):gt(position:view(T, 1)) -- key after query: masked
  local weights = q:bmm(k:transpose(2, 3)):div(math.sqrt(dh)):masked_fill(future, -math.huge):softmax(3)
  local joined = weights:bmm(v):view(B, h, T, dh):transpose(2, 3):reshape(B * T, D)
  return self.out_proj(joined):view(B, T, D)
end

-- PyTorch's nn.LayerNorm(d) over the last dim, from ops (the biased variance, as PyTorch's).
local LayerNorm = nn.Module:extend('LayerNormFromOps')
function LayerNorm:__init(d)
  self:parameter('weight', { d }, o)
  self:parameter('bias', { d }, o)
end
function LayerNorm:forward(x)
  local centred = x:sub(x:mean(-1))
  local var = centred:mul(centred):mean(-1)
  return centred:div(var:add(1e-5):sqrt()):mul(self.weight):add(self.bias)
end

local Block = nn.Module:extend('AttentionBlock')
function Block:__init(d, heads)
  self.attn = Attention(d, heads)
  self.norm = LayerNorm(d)
end
function Block:forward(x) return self.norm(x:add(self.attn(x))) end -- the residual

local function largest(a, b) return a:sub(b):abs():view(-1):max(1):item() end

describe('a causal attention block written from ops, with a forward only', function()
  it('trains with PyTorch\'s gradients (nn.MultiheadAttention, nn.LayerNorm) within 1e-10', function()
    local ref = fused.load(dir .. 'reference.safetensors')
    local x, target = ref.x, ref.target
    local block = Block(x:size(3), HEADS)
    local init = {}
    for name in pairs(block:state_dict()) do init[name] = ref[name] end
    block:load_state_dict(init)
    local criterion = nn.MSELoss()
    local params, grads = block:parameters()
    local checked = 0
    for step = 1, STEPS do
      block:zero_grad()
      local y = block:forward(x)
      local loss = criterion:forward(y, target)
      assert(math.abs(loss - ref.losses[step]) <= 1e-10, 'loss, step ' .. step)
      local d_x = block:backward(criterion:backward(y, target))
      assert(largest(d_x, ref['grad.x'][step]) <= 1e-10, 'input, step ' .. step)
      for name, _, g in block:named_parameters() do
        local d = largest(g, ref['grad.' .. name][step])
        assert(d <= 1e-10, string.format('%s, step %d: off by %g', name, step, d))
        checked = checked + 1
      end
      for k, p in ipairs(params) do p:add_(grads[k], { alpha = -LR }) end
    end
    assert.are.equal(6 * STEPS, checked)
  end)
end)
