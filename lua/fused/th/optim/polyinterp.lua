-- optim.polyinterp(points[, xminBound, xmaxBound]), torch/optim's polyinterp.lua for the two
-- points that optim.lswolfe gives it: points {{x1, f1, g1}, {x2, f2, g2}} (a 2 x 3 tensor or
-- Lua table); the minimiser, within the bounds, of the cubic through both values and slopes.
-- Without bounds, the closed form between the points (their mean when the cubic has no real
-- minimiser); with them, the least of the cubic at the bounds, the points and its real
-- critical points inside.
local fused = require 'fused'

local function rows(points)
  if fused.is_tensor(points) then points = points:totable() end
  if type(points) ~= 'table' or #points ~= 2 or #points[1] ~= 3 or #points[2] ~= 3 then
    error('optim.polyinterp: argument \'points\' expected two points {x, f(x), f\'(x)} (a 2 x 3 tensor or table)', 3)
  end
  return points
end

-- x solving A x = b (4 x 4), by Gaussian elimination with partial pivoting.
local function solve(A, b)
  local n = #b
  for k = 1, n do
    local p = k
    for i = k + 1, n do if math.abs(A[i][k]) > math.abs(A[p][k]) then p = i end end
    A[k], A[p], b[k], b[p] = A[p], A[k], b[p], b[k]
    for i = k + 1, n do
      local m = A[i][k] / A[k][k]
      for j = k, n do A[i][j] = A[i][j] - m * A[k][j] end
      b[i] = b[i] - m * b[k]
    end
  end
  local x = {}
  for i = n, 1, -1 do
    local s = b[i]
    for j = i + 1, n do s = s - A[i][j] * x[j] end
    x[i] = s / A[i][i]
  end
  return x
end

-- The real roots of c[1] x^2 + c[2] x + c[3] (coefficients below 1e-12 taken as 0, as optim's).
local function real_roots(c)
  local a, b, k = unpack(c)
  if math.abs(a) < 1e-12 then a = 0 end
  if math.abs(b) < 1e-12 then b = 0 end
  if math.abs(k) < 1e-12 then k = 0 end
  if a == 0 then return b ~= 0 and { -k / b } or {} end
  local disc = b * b - 4 * a * k
  if disc < 0 then return {} end
  local s = math.sqrt(disc)
  return { (-b + s) / (2 * a), (-b - s) / (2 * a) }
end

return function(points, xminBound, xmaxBound)
  local p = rows(points)
  if not xminBound and not xmaxBound then
    local lo, hi = p[1], p[2]
    if hi[1] < lo[1] then lo, hi = hi, lo end
    local d1 = lo[3] + hi[3] - 3 * (lo[2] - hi[2]) / (lo[1] - hi[1])
    local d2 = math.sqrt(d1 ^ 2 - lo[3] * hi[3])
    if d2 == d2 then
      local t = hi[1] - (hi[1] - lo[1]) * ((hi[3] + d2 - d1) / (hi[3] - lo[3] + 2 * d2))
      return math.min(math.max(t, lo[1]), hi[1])
    end
    return (lo[1] + hi[1]) / 2
  end
  xminBound = xminBound or math.min(p[1][1], p[2][1])
  xmaxBound = xmaxBound or math.max(p[1][1], p[2][1])
  -- The cubic's coefficients, highest power first: values then slopes at both points.
  local A, b = {}, {}
  for i = 1, 2 do
    local x = p[i][1]
    A[i], b[i] = { x ^ 3, x ^ 2, x, 1 }, p[i][2]
    A[2 + i], b[2 + i] = { 3 * x ^ 2, 2 * x, 1, 0 }, p[i][3]
  end
  local params = solve(A, b)
  for i = 1, 4 do if math.abs(params[i]) <= 1e-12 then params[i] = 0 end end
  local candidates = { xminBound, xmaxBound, p[1][1], p[2][1] }
  local dParams = { 3 * params[1], 2 * params[2], params[3] }
  local finite = true
  for _, v in ipairs(dParams) do finite = finite and v == v and v ~= math.huge end
  if finite then
    for _, r in ipairs(real_roots(dParams)) do candidates[#candidates + 1] = r end
  end
  local fmin, minPos = math.huge, (xminBound + xmaxBound) / 2
  for _, x in ipairs(candidates) do
    if x >= xminBound and x <= xmaxBound then
      local f = ((params[1] * x + params[2]) * x + params[3]) * x + params[4]
      if f < fmin then minPos, fmin = x, f end
    end
  end
  return minPos
end
