-- A linear cell (fused.cell.define{linear = true}; docs/extending.md): its step
-- step(gx, s, p, x, reset) returns new states each linear in the old ones. This module reads
-- that off the step's graph: the check (an op on a state-dependent value that is not linear in
-- it is refused, naming the state and the term), the coefficients A[i][k] (the derivative of
-- new state i by old state k, grad.lua's) and b[i] (new state i at old states 0), the
-- derivative of the coefficients by gx, p and x (grad.lua again, from seeds d_A and d_b), their
-- C (linear_codegen.lua), built by fused.ext.load; and the two functions that run it.
local ffi = require 'ffi'
local graph = require 'fused.cell.graph'
local grad = require 'fused.cell.grad'
local linear_codegen = require 'fused.cell.linear_codegen'
local dt = require 'fused.dtype'
local factory = require 'fused.factory'
local lib = require 'fused.lib'

local M = {}

local FN = 'fused.cell.define'

-- How an expression reads in the step, for an error: a few levels deep.
local CALLS = { sigmoid = true, tanh = true, exp = true, log = true, sqrt = true, sin = true,
                cos = true, softplus = true, abs = true, elu = true, relu = true, max = true,
                min = true, stop = 'stop_gradient' }
local INFIX = { add = '+', sub = '-', mul = '*', div = '/' }
local function show(n, depth)
  if n.op == 'const' then return tostring(n.value) end
  if n.op == 'gx' then return 'gx[' .. n.index .. ']' end
  if n.op == 'h' or n.op == 'c' then return 's.' .. n.label end
  if n.op == 'p' then return 'p.' .. n.label end
  if #n.args == 0 then return n.op end
  if depth == 0 then return '...' end
  local a = {}
  for i, x in ipairs(n.args) do a[i] = show(x, depth - 1) end
  if INFIX[n.op] then return '(' .. a[1] .. ' ' .. INFIX[n.op] .. ' ' .. a[2] .. ')' end
  if n.op == 'neg' then return '-' .. a[1] end
  local cmp = n.op:match('^select_(%a+)')
  if cmp then
    return string.format('F.where(F.%s(%s, %s), %s, %s)', cmp, a[1], a[2], a[3], a[4])
  end
  local f = CALLS[n.op] == true and n.op or CALLS[n.op] or n.op
  return 'F.' .. f .. '(' .. table.concat(a, ', ') .. ')'
end

-- The first node of roots' graph that is not linear in the states (is_state: the leaves), or
-- nil. Linear: +, -, negation, * by a state-free factor, / by a state-free divisor, F.where on
-- a state-free condition; anything else of a state-dependent value is not.
local function first_nonlinear(roots, is_state)
  local dep = {}
  for _, n in ipairs(graph.reachable(roots)) do
    if is_state[n] then dep[n] = true
    else
      local d = {}
      for i, a in ipairs(n.args) do d[i] = dep[a] or false end
      local any = false
      for i = 1, #d do any = any or d[i] end
      if any then
        local op, ok = n.op, false
        if op == 'add' or op == 'sub' or op == 'neg' then ok = true
        elseif op == 'mul' then ok = not (d[1] and d[2])
        elseif op == 'div' then ok = not d[2]
        elseif op:match('^select_') then ok = not d[1] and not d[2] end
        if not ok then return n end
        dep[n] = true
      end
    end
  end
end

-- The nodes of roots with the state leaves replaced by 0: b, each new state's part that no
-- state reaches. A product by a state's 0 is 0 and a sum with it the other side (the state's
-- term of A s + b, not an IEEE product by zero).
local function at_zero(g, roots, is_state)
  local zero = graph.const(g, 0)
  local map = {}
  for _, n in ipairs(graph.reachable(roots)) do
    if is_state[n] then map[n] = zero
    elseif #n.args == 0 then map[n] = n
    else
      local a = {}
      for i, x in ipairs(n.args) do a[i] = map[x] end
      local z1, z2 = rawequal(a[1], zero), rawequal(a[2], zero)
      if n.op == 'mul' and (z1 or z2) then map[n] = zero
      elseif n.op == 'div' and z1 then map[n] = zero
      elseif n.op == 'add' and z1 then map[n] = a[2]
      elseif (n.op == 'add' or n.op == 'sub') and z2 then map[n] = a[1]
      elseif n.op == 'sub' and z1 then map[n] = graph.op(g, 'neg', a[2])
      elseif n.op == 'neg' and z1 then map[n] = zero
      elseif n.op:match('^select_') and rawequal(a[3], zero) and rawequal(a[4], zero) then
        map[n] = zero
      else map[n] = graph.op(g, n.op, unpack(a)) end
    end
  end
  local out = {}
  for i, r in ipairs(roots) do out[i] = map[r] end
  return out
end

-- The outputs' pass of a cell whose outputs (d.outputs: a state's index, or the name of an
-- expression the step returned, d.computed) are not all states: each output over the new
-- states (leaves ns), and the derivatives from seeds dy at them; nil when they are all states.
local function outputs_pass(d, is_state)
  local roots, any = {}, false
  for k, o in ipairs(d.outputs) do
    if type(o) == 'number' then roots[k] = d.new[o] else roots[k], any = d.computed[o], true end
  end
  if not any then return nil end
  local g, map = d.g, {}
  for i, n in ipairs(d.new) do map[n] = graph.leaf(g, 'ns', i) end
  for _, n in ipairs(graph.reachable(roots, function(n) return map[n] ~= nil end)) do
    if not map[n] then
      if #n.args == 0 then map[n] = n
      else
        local a = {}
        for i, x in ipairs(n.args) do a[i] = map[x] end
        map[n] = graph.op(g, n.op, unpack(a))
      end
    end
  end
  local y, seeds = {}, {}
  for k, r in ipairs(roots) do
    y[k] = map[r]
    seeds[k] = { y[k], graph.leaf(g, 'dy', k) }
    for _, n in ipairs(graph.reachable({ y[k] })) do
      if is_state[n] then
        error(string.format("%s: %s: output '%s' reads the old state '%s' (an output is an "
                            .. 'expression of the new states, gx, p, x and reset)', FN, d.name,
                            d.output_names[k], n.label), 0)
      end
    end
  end
  local adj = grad.backward(g, seeds)
  local zero = graph.const(g, 0)
  local out = { y = y, d_ns = {}, d_gx = {}, d_p = {} }
  for i = 1, #d.new do out.d_ns[i] = adj[map[d.new[i]]] or zero end
  for k = 1, d.gates do out.d_gx[k] = adj[graph.leaf(g, 'gx', k)] or zero end
  for k = 1, #d.params do out.d_p[k] = adj[d.p_leaves[k]] or zero end
  local _, reaches = graph.reachable(y)
  if reaches[d.x] then out.d_x = adj[d.x] or zero end
  return out
end

-- d: {name, g, gates, names (the states'), params, new (the new states' nodes), leaves (the
-- old states'), p_leaves, x (leaf), reset (leaf), outputs, output_names, computed}. Returns
-- the coefficient graph's parts:
-- {A, b, d_gx, d_p, d_x (nil when x is not read)}; raises the definition's errors.
function M.analyse(d)
  local g, S = d.g, #d.names
  if S > lib.C.FUSED_SCAN_MAX_STATES then -- the scan engine's bound, known before compiling
    error(string.format("%s: %s: a linear cell holds 1 to %d states (the scan engine's S x S "
                        .. 'coefficients per unit), got %d (state = {%s})', FN, d.name,
                        lib.C.FUSED_SCAN_MAX_STATES, S, table.concat(d.names, ', ')), 0)
  end
  local is_state = {}
  for _, l in ipairs(d.leaves) do is_state[l] = true end
  for i, n in ipairs(d.new) do
    local bad = first_nonlinear({ n }, is_state)
    if bad then
      error(string.format("%s: %s: state '%s' is not linear in the states (a linear cell's new "
                          .. 'states are A s + b with A and b of gx, p, x and reset only): the '
                          .. 'term %s', FN, d.name, d.names[i], show(bad, 3)), 0)
    end
  end
  local one = graph.const(g, 1)
  local A = {}
  for i = 1, S do
    local adj = grad.backward(g, { { d.new[i], one } })
    A[i] = {}
    for k = 1, S do A[i][k] = adj[d.leaves[k]] or graph.const(g, 0) end
  end
  local b = at_zero(g, d.new, is_state)
  local seeds = {}
  for i = 1, S do
    for k = 1, S do
      seeds[#seeds + 1] = { A[i][k], graph.leaf(g, 'dA', (i - 1) * S + k) }
    end
    seeds[#seeds + 1] = { b[i], graph.leaf(g, 'db', i) }
  end
  local adj = grad.backward(g, seeds)
  local zero = graph.const(g, 0)
  local out = { A = A, b = b, d_gx = {}, d_p = {} }
  for k = 1, d.gates do out.d_gx[k] = adj[graph.leaf(g, 'gx', k)] or zero end
  for k = 1, #d.params do out.d_p[k] = adj[d.p_leaves[k]] or zero end
  -- x is read when a coefficient reads it (its gradient may still be 0 where)
  local roots = {}
  for i = 1, S do
    for k = 1, S do roots[#roots + 1] = A[i][k] end
    roots[#roots + 1] = b[i]
  end
  local _, reaches = graph.reachable(roots)
  for _, n in ipairs(graph.reachable(roots)) do
    assert(not is_state[n], 'fused.cell: a linear coefficient reads a state')
  end
  if reaches[d.x] then out.d_x = adj[d.x] or zero end
  out.outputs = outputs_pass(d, is_state)
  return out
end

M.generate = linear_codegen.generate

-- The cell's coefficient functions over tensors, from the loaded library's namespace and the
-- functions' prefix: coefficients(gx, p, x, reset) -> A, b and coefficients_backward(gx, p,
-- x, reset, d_A, d_b) -> d_gx, d_p (summed over the rows), d_x (nil where not read); with an
-- outputs' pass (parts.outputs), compute_outputs(gx, p, x, reset, h) -> y (n, O·H) and
-- compute_outputs_backward(gx, p, x, reset, h, d_y) -> d_h (n, S·H), d_gx, d_p, d_x. gx
-- (n, G·H), p (P, H) or nil, x (n, H) or nil, reset a bool (n) or nil, all contiguous on one
-- device (fused.nn's linear layer makes them so); alloc (optional, last): alloc(name, shape,
-- like) gives the results' tensors (a module's buffers). On CUDA, the same source's kernels
-- (cuda(): their namespace, built on the first CUDA run).
function M.functions(namespace, cuda, symbol, S, P, H_of, parts)
  local function fn(name, t)
    local sfx = t.scalar_type == dt.dtypes.float32 and 'f32' or 'f64'
    if t.device == 'cpu' then return namespace[symbol .. '_' .. name .. '_' .. sfx] end
    local f = cuda()[symbol .. '_cuda_' .. name .. '_' .. sfx]
    return function(...) require('fused.ext').check(f(...)) end
  end
  local function ptr(t) return t ~= nil and ffi.cast(dt.ctypes[t.scalar_type], t.data) or nil end
  local function bools(reset) return reset ~= nil and ffi.cast('const bool *', reset.data) or nil end
  -- a result tensor of shape on like's dtype and device: alloc's (a module's buffer, reused
  -- from call to call), else a new one
  local function new(alloc, name, shape, like)
    if alloc then return alloc(name, shape, like) end
    return factory.empty(shape, { dtype = like.dtype, device = like.device })
  end
  local f = {}
  function f.coefficients(gx, p, x, reset, alloc)
    local n, H = gx:size(1), H_of(gx)
    local A, b = new(alloc, 'A', { n, S * S * H }, gx), new(alloc, 'b', { n, S * H }, gx)
    fn('coefficients', gx)(n, H, ptr(gx), ptr(p), ptr(x), bools(reset), ptr(A), ptr(b))
    return A, b
  end
  function f.coefficients_backward(gx, p, x, reset, dA, db, alloc)
    local n, H = gx:size(1), H_of(gx)
    local d_gx = new(alloc, 'coef_d_gx', gx:shape(), gx)
    local d_p = new(alloc, 'coef_d_p', { n, math.max(P, 1), H }, gx)
    local d_x = x ~= nil and new(alloc, 'coef_d_x', x:shape(), x) or nil
    fn('coefficients_backward', gx)(n, H, ptr(gx), ptr(p), ptr(x), bools(reset), ptr(dA),
                                    ptr(db), ptr(d_gx), ptr(d_p), ptr(d_x))
    return d_gx, P > 0 and d_p:sum(1):view(P, H) or nil, parts.d_x and d_x or nil
  end
  local O = parts.outputs and #parts.outputs.y
  function f.compute_outputs(gx, p, x, reset, h, alloc)
    local n, H = gx:size(1), H_of(gx)
    local y = new(alloc, 'y', { n, O * H }, gx)
    fn('outputs', gx)(n, H, ptr(gx), ptr(p), ptr(x), bools(reset), ptr(h), ptr(y))
    return y
  end
  function f.compute_outputs_backward(gx, p, x, reset, h, dy, alloc)
    local n, H = gx:size(1), H_of(gx)
    local d_h = new(alloc, 'out_d_h', { n, S * H }, gx)
    local d_gx = new(alloc, 'out_d_gx', gx:shape(), gx)
    local d_p = new(alloc, 'out_d_p', { n, math.max(P, 1), H }, gx)
    local d_x = x ~= nil and new(alloc, 'out_d_x', x:shape(), x) or nil
    fn('outputs_backward', gx)(n, H, ptr(gx), ptr(p), ptr(x), bools(reset), ptr(h), ptr(dy),
                               ptr(d_h), ptr(d_gx), ptr(d_p), ptr(d_x))
    return d_h, d_gx, P > 0 and d_p:sum(1):view(P, H) or nil,
           parts.outputs.d_x and d_x or nil
  end
  return f
end

return M
