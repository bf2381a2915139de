-- Torch7's random functions over fused's generator (fused.manual_seed seeds both):
-- torch.manualSeed, seed, initialSeed, random, uniform, normal, bernoulli, randperm,
-- multinomial. Draws are fused's uniforms, so a seed gives the same program run twice.
local fused = require 'fused'
local types = require 'fused.th.torch.types'

local M = {}
local initial = 0

function M.manualSeed(seed)
  fused.manual_seed(seed)
  initial = seed
end

-- torch.seed(): seeds from the clock, returns the seed.
function M.seed()
  local s = os.time() + math.floor(os.clock() * 1e6)
  M.manualSeed(s)
  return s
end

function M.initialSeed() return initial end

local function draw() return fused.rand(1, { dtype = 'float64' }):item() end

-- torch.uniform([a, b]) a number in [a, b); torch.normal([mean, std]); torch.bernoulli([p]) 0 or
-- 1; torch.random([a,] [b]) a whole number in 1..a or a..b (Torch7's with no argument: up to 2^32).
function M.uniform(a, b)
  a, b = a or 0, b or 1
  return a + (b - a) * draw()
end
function M.normal(mean, std)
  return (mean or 0) + (std or 1) * fused.randn(1, { dtype = 'float64' }):item()
end
function M.bernoulli(p) return draw() < (p or 0.5) and 1 or 0 end
function M.random(a, b)
  if a == nil then a, b = 1, 2 ^ 32 elseif b == nil then a, b = 1, a end
  if a > b then error(string.format("torch.random: the range %d..%d is empty", a, b), 2) end
  return a + math.floor(draw() * (b - a + 1))
end

-- torch.randperm(n): 1..n in a random order, of the default type (Torch7's).
function M.randperm(n)
  if type(n) ~= 'number' or n < 1 or n ~= math.floor(n) then
    error("torch.randperm: argument 'n' expected a whole number >= 1, got " .. tostring(n), 2)
  end
  local _, order = fused.rand(n, { dtype = 'float64' }):sort(1)
  return order:to(types.CLASSES[types.default()].dtype)
end

-- torch.multinomial(p, n[, replacement]): n draws of indices (1-based, int64) with
-- probabilities p (weights, normalised; 1-D, or 2-D: a row of draws per row), without
-- replacement unless replacement is true.
function M.multinomial(p, n, replacement, ...)
  if select('#', ...) > 0 then error('torch.multinomial: expected (p, n[, replacement])', 2) end
  if not types.is_tensor(p) or p.ndim < 1 or p.ndim > 2 then
    error("torch.multinomial: argument 'p' expected a 1-D or 2-D tensor of weights", 2)
  end
  if type(n) ~= 'number' or n < 1 or n ~= math.floor(n) then
    error("torch.multinomial: argument 'n' expected a whole number >= 1, got " .. tostring(n), 2)
  end
  local rows = p.ndim == 1 and { p:to('float64'):totable() } or p:to('float64'):totable()
  local out = {}
  for r, w in ipairs(rows) do
    w = { unpack(w) }
    local positive = 0
    for i = 1, #w do
      if w[i] < 0 or w[i] ~= w[i] or w[i] == math.huge then
        error(string.format("torch.multinomial: argument 'p' expected finite weights >= 0, got %s at %d",
                            tostring(w[i]), i), 2)
      end
      if w[i] > 0 then positive = positive + 1 end
    end
    if positive == 0 or (not replacement and n > positive) then
      error(string.format("torch.multinomial: %d draws%s need %s positive weights in row %d, got %d",
                          n, replacement and '' or ' without replacement', replacement and 'some' or tostring(n),
                          r, positive), 2)
    end
    local row = {}
    for k = 1, n do
      local total = 0
      for i = 1, #w do total = total + w[i] end
      local u, acc, pick = draw() * total, 0, nil
      for i = 1, #w do
        acc = acc + w[i]
        if w[i] > 0 and u < acc then pick = i; break end
      end
      if not pick then -- u rounded up to total: the last positive weight
        for i = #w, 1, -1 do if w[i] > 0 then pick = i; break end end
      end
      row[k] = pick
      if not replacement then w[pick] = 0 end
    end
    out[r] = row
  end
  return fused.tensor(p.ndim == 1 and out[1] or out, { dtype = 'int64' })
end

return M
