-- The library runs the same inside `fused th` as outside it (issue 37, item 2): a workload of
-- fused's own API (nn modules and their backward, a derived backward, fused.grad through the
-- tape's rules, an optimizer step) gives the very same numbers in both modes. It is the
-- runtime side of spec/th_library_forms_spec.lua, which reads the sources: a call whose
-- meaning Torch7 mode changes, made anywhere the workload reaches, shows here as a difference.
local fused = require 'fused'
local th = require 'fused.th'

local nn, o = fused.nn, { dtype = 'float64' }

-- Every number the workload computes, in order: written with the forms that mean the same in
-- both modes (fused.*, the _ methods, + and -; not a * b of two tensors, Torch7's matrix
-- product under fused th), as a program moving to fused's forms writes them.
local function workload()
  fused.manual_seed(11)
  local out = {}
  local function keep(t)
    if type(t) == 'number' then out[#out + 1] = t; return end
    for _, v in ipairs(t:contiguous():view(t:numel()):totable()) do out[#out + 1] = v end
  end

  -- A model with hand-written backwards, a loss and an Adam step.
  local model = nn.Sequential(nn.Linear(4, 6, o), nn.Tanh(), nn.Linear(6, 3, o))
  local loss = nn.CrossEntropyLoss()
  local params, grads = model:parameters()
  local adam = fused.optim.Adam(params, grads, { lr = 0.01 })
  local x, target = fused.randn({ 5, 4 }, o), fused.tensor({ 1, 3, 2, 2, 1 }, { dtype = 'int64' })
  for _ = 1, 2 do
    model:zero_grad()
    local y = model:forward(x)
    keep(loss:forward(y, target))
    model:backward(x, loss:backward(y, target))
    adam:step()
  end
  for _, p in ipairs(params) do keep(p) end

  -- An LSTM's forward and backward.
  local lstm = nn.LSTM(3, 4, o)
  local seq = fused.randn({ 2, 5, 3 }, o)
  local hs, h, c = lstm:forward(seq)
  keep(hs); keep(h); keep(c)
  keep(lstm:backward(seq, { fused.randn(hs:shape(), o), fused.zeros(h:shape(), o), fused.zeros(c:shape(), o) }))
  for _, g in ipairs(select(2, lstm:parameters())) do keep(g) end

  -- A module with a forward only: its backward derived by the tape.
  local Gate = nn.Module:extend('SameGate')
  function Gate:__init() self:parameter('weight', { 3, 3 }, o) end
  function Gate:forward(v)
    return fused.mul(fused.sigmoid(fused.matmul(v, self.weight)), fused.tanh(v)) + fused.exp(v * 0.1)
  end
  local gate = Gate()
  local v = fused.randn({ 2, 3 }, o)
  local gy = gate:forward(v)
  keep(gy)
  keep(gate:backward(v, fused.ones(gy:shape(), o)))
  keep(gate.grad.weight)

  -- fused.grad through the rules of many ops.
  local df = fused.grad(function(p, u)
    local a = fused.log(fused.exp(p.w) + 1) / (fused.clamp(p.w, -0.5, 0.5) + 2)
    local b = fused.mul(fused.softmax(a, 2), fused.log_softmax(a, 1)) + fused.maximum(a, p.w) - fused.pow(fused.abs(a), 1.5)
    local c = fused.mul(fused.cumsum(b, 2), fused.cumprod(fused.sigmoid(b), 1)) + fused.sqrt(fused.abs(b) + 1)
    return fused.norm(c) + fused.var(c) + fused.std(c, 1):sum() + fused.prod(fused.tanh(c) + 2)
      + fused.max(c) + fused.logsumexp(c, 2):sum() + fused.mean(fused.mul(-c, u))
  end)
  local g, value = df({ w = fused.randn({ 3, 4 }, o) }, fused.randn({ 3, 4 }, o))
  keep(g.w)
  keep(value)
  return out
end

describe('the library inside fused th', function()
  it('computes what it computes outside, number for number', function()
    local outside = workload()
    th.install()
    local ok, inside = pcall(workload)
    th.uninstall()
    assert(ok, inside)
    assert.are.equal(#outside, #inside)
    assert.is_true(#outside > 100, 'only ' .. #outside .. ' numbers')
    for i = 1, #outside do
      assert(outside[i] == inside[i], string.format('number %d: %.17g outside, %.17g inside', i, outside[i], inside[i]))
    end
  end)
end)
