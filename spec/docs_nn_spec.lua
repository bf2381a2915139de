-- docs/nn.md's layer with a forward only runs as written: its lua block, given x and d_y,
-- derives the backward that a hand-written one gives (float32, to its precision).
local helper = require 'spec.helper'
local fused = helper.fused

local function block()
  local text = helper.read((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '../docs/nn.md')
  local code = text:match('%(`spec/docs_nn_spec.lua` runs this block%):%s*```lua\n(.-)```')
  assert(code, "docs/nn.md: no lua block after '(`spec/docs_nn_spec.lua` runs this block):'")
  return code
end

describe('docs/nn.md', function()
  it('derives the backward of its layer with a forward only', function()
    local x, d_y = fused.randn({ 4, 8 }), fused.randn({ 4, 8 })
    local env = setmetatable({ fused = fused, x = x, d_y = d_y }, { __index = _G })
    local chunk = assert(loadstring(block() .. '\nreturn gate, d_x', '=docs/nn.md'))
    local gate, d_x = setfenv(chunk, env)()
    -- By hand: y = s * p, s = sigmoid(x W), p = x A^T + b.
    local W, A, b = gate.weight, gate.proj.weight, gate.proj.bias
    local s = x:matmul(W):sigmoid()
    local p = x:matmul(A:t()):add(b)
    local d_pre = d_y:mul(p):mul(s):mul(s:neg():add(1))
    local d_p = d_y:mul(s)
    local function near(a, want, what)
      local err = a:sub(want):abs():view(-1):max(1):item()
      assert(err < 1e-5, string.format('%s: off by %g', what, err))
    end
    near(d_x, d_pre:matmul(W:t()):add(d_p:matmul(A)), 'd_x')
    near(gate.grad.weight, x:t():matmul(d_pre), 'weight')
    near(gate.proj.grad.weight, d_p:t():matmul(x), 'proj.weight')
    near(gate.proj.grad.bias, d_p:sum(1):view(8), 'proj.bias')
  end)
end)
