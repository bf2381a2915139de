-- The C of a defined cell (fused.cell.define): its forward and backward steps in the form of
-- examples/custom_cell/ (FUSED_CELL_FORWARD/BACKWARD over fused_simd.h's vectors; the same
-- text compiled as CUDA runs one element a thread, c/fused_cell_cuda.h), and the saved layout
-- that fused.ext.cell registers (c/maths/cell_layout.h).
--
-- Saved per row: the forward values backward reads (the activations' outputs; a leaf gx, gh,
-- a state or a parameter it reads), then h_prev. Backward recomputes what costs one arithmetic
-- op of values it has rather than save it, writes the recurrent products' gradients at blocks
-- 0.. (d_hh = 0), the per-unit parameters' at the P blocks after them, and the input products'
-- at the gates' too when they are the same nodes (a gate of gx[k] + gh[k]), else at the G
-- blocks after the parameters' (d_ih = G + P), over values it has already read. The states
-- after h are the engine's c, side by side (state k + 1 at c + k H); the parameters follow the
-- G recurrent biases in b_hh. A step that reads x (the layer's input at its unit) finds it at
-- block x, after the others, which the engine fills before forward and nothing overwrites (so
-- backward reads it there as it reads h_prev), and writes its gradient at block d_x, after the
-- other gradients', which the engine adds into d_xs.
local graph = require 'fused.cell.graph'

local M = {}

-- Arithmetic on values at hand: recomputed in backward rather than saved.
local cheap = { add = true, sub = true, mul = true, div = true, neg = true, abs = true, stop = true,
                relu = true, max = true, min = true, select_lt = true, select_le = true,
                select_eq = true, dsigmoid = true, dtanh = true, delu = true }

-- v as a C double literal that the compiler reads back as v exactly: the shortest of 15, 16
-- or 17 significant digits that reads back so, with a '.0' where it has neither '.' nor an
-- exponent (so that -0.0 stays a double: -0 is the integer 0).
local function number(v)
  if v ~= v then return 'NAN' end
  if v == math.huge then return 'INFINITY' end
  if v == -math.huge then return '-INFINITY' end
  local s
  for digits = 15, 17 do
    s = string.format('%.' .. digits .. 'g', v)
    if tonumber(s) == v then break end
  end
  if not s:find('[.e]') then s = s .. '.0' end
  return s
end
M.number = number

local leaf_names = { h = 'h_prev_', c = 'c_prev_', dh = 'g_h_', dc = 'g_c_', x = 'x_' }

local function name_of(n)
  if n.op == 'gx' or n.op == 'gh' then return n.op .. n.index .. '_' end
  if n.label then -- a state or parameter of a list: by its name
    return (n.op == 'dh' or n.op == 'dc') and 'g_' .. n.label .. '_'
      or (n.op == 'p' and 'p_' or 's_') .. n.label .. '_'
  end
  return leaf_names[n.op] or (n.op:gsub('_%a%a$', '') .. n.id)
end
M.name_of = name_of

local function expression(n)
  local a = {}
  for i, x in ipairs(n.args) do
    a[i] = x.op == 'const' and ('vsplat(' .. number(x.value) .. ')') or name_of(x)
  end
  local op = n.op
  if op == 'add' then return a[1] .. ' + ' .. a[2] end
  if op == 'sub' then return a[1] .. ' - ' .. a[2] end
  if op == 'mul' then return a[1] .. ' * ' .. a[2] end
  if op == 'div' then return a[1] .. ' / ' .. a[2] end
  if op == 'neg' then return '-' .. a[1] end
  if op == 'stop' then return a[1] end
  if op == 'sigmoid' then return 'sigmoid_of(' .. a[1] .. ')' end
  if op == 'tanh' then return 'tanh_of(' .. a[1] .. ')' end
  if op == 'elu' then return 'elu_of(' .. a[1] .. ', (scalar_t)1)' end
  if op == 'abs' then return 'vabs(' .. a[1] .. ')' end
  if op == 'exp' or op == 'log' or op == 'sqrt' or op == 'sin' or op == 'cos' then
    return 'FUSED_LANEWISE(' .. op .. ', ' .. a[1] .. ')'
  end
  if op == 'softplus' then return 'FUSED_SOFTPLUS(' .. a[1] .. ')' end
  if op == 'relu' then -- PyTorch's: NaN stays NaN
    return string.format('vselect((%s != %s) | (%s > vsplat(0)), %s, vsplat(0))', a[1], a[1],
                         a[1], a[1])
  end
  if op == 'max' or op == 'min' then -- PyTorch's maximum and minimum: a NaN on either side wins
    return string.format('vselect((%s != %s) | (%s %s %s), %s, %s)', a[1], a[1], a[1],
                         op == 'max' and '>' or '<', a[2], a[1], a[2])
  end
  local compare = { select_lt = '<', select_le = '<=', select_eq = '==' }
  if compare[op] then
    return string.format('vselect(%s %s %s, %s, %s)', a[1], compare[op], a[2], a[3], a[4])
  end
  if op == 'dsigmoid' then return 'd_sigmoid_from_output(' .. a[1] .. ')' end
  if op == 'dtanh' then return 'd_tanh_from_output(' .. a[1] .. ')' end
  if op == 'delu' then return 'd_elu_from_output(' .. a[1] .. ')' end
  error('fused.cell: no C for op ' .. op)
end
M.expression = expression

local function value(n)
  return n.op == 'const' and ('vsplat(' .. number(n.value) .. ')') or name_of(n)
end
M.value = value

-- gcc's time on one long straight-line body grows faster than its lines; these passes most
-- (a chain of 1,000 multiply-adds, 4,000 lines: 6.9 s of CPU at -O3, 2.7 s without them;
-- 300 nested tanh 10.1 s, 7.2 s). A large cell compiles without them, under gcc only (as C
-- or as emulated CUDA; nvcc's and clang's compilers go their own way).
local LARGE_LINES = 500
local LARGE_PRAGMA = {
  '#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)',
  '#pragma GCC optimize("no-gcse", "no-gcse-after-reload", "no-tree-pre", "no-schedule-insns2", \\',
  '                     "ira-region=one") /* a large cell: compile time (codegen.lua) */',
  '#endif',
}

local function block(k) return k == 0 and 'j' or (k .. ' * H + j') end

-- Lines computing the nodes of list (in id order) not in skip, from the leaves loaded.
local function emit(lines, list, skip)
  for _, n in ipairs(list) do
    if not skip[n] and n.op ~= 'const' and #n.args > 0 then
      lines[#lines + 1] = '    const vec ' .. name_of(n) .. ' = ' .. expression(n) .. ';'
    end
  end
end

local function load_leaf(n, L)
  if n.op == 'gx' then
    local at = block(n.index - 1)
    return string.format('vload(s + %s, m) + vload(b_ih + %s, m)', at, at)
  elseif n.op == 'gh' then
    local at = block(n.index - 1)
    return string.format('vload(gh + %s, m) + vload(b_hh + %s, m)', at, at)
  elseif n.op == 'h' then return 'vload(s + ' .. block(L.h_prev) .. ', m)'
  elseif n.op == 'x' then return 'vload(s + ' .. block(L.x) .. ', m)'
  elseif n.op == 'c' then return 'vload(c + ' .. block(n.index - 1) .. ', m)'
  elseif n.op == 'p' then return 'vload(b_hh + ' .. block(L.gates + n.index - 1) .. ', m)' end
  -- a seed: the gradient at a new state, and the step's output gradient at the output state's
  local at = n.op == 'dh' and 'dh + j' or 'dc + ' .. block(n.index - 1)
  local k = L.output_of[n.op == 'dh' and 1 or n.index + 1]
  if not k then return 'vload(' .. at .. ', m)' end
  return 'vload(' .. at .. ', m) + (d_out ? vload(d_out + ' .. block(k - 1) .. ', m) : vsplat(0))'
end

local function is_leaf(n) return #n.args == 0 and n.op ~= 'const' end

-- Which forward nodes backward reads, and how: saved (in order) or recomputed; h_prev and x
-- stay in their blocks.
local kept = { const = true, h = true, x = true }
local function plan(boundary)
  local saved, recompute, status = {}, {}, {}
  -- depth first, args in order, on a stack of its own (a deep graph overflows Lua's)
  local function need(root)
    local stack = { root }
    while #stack > 0 do
      local n = table.remove(stack)
      if status[n] then -- decided
      elseif kept[n.op] then status[n] = 'free'
      else
        local missing = 0
        for _, a in ipairs(n.args) do
          if not status[a] and not kept[a.op] then missing = missing + 1 end
        end
        if cheap[n.op] and missing <= 1 then
          status[n] = 'recompute'
          recompute[#recompute + 1] = n
          for i = #n.args, 1, -1 do stack[#stack + 1] = n.args[i] end
        else
          status[n] = 'saved'
          saved[#saved + 1] = n
        end
      end
    end
  end
  -- the activations first, so that arithmetic over them finds them saved
  table.sort(boundary, function(x, y) return x.id < y.id end)
  for _, n in ipairs(boundary) do if not cheap[n.op] then need(n) end end
  for _, n in ipairs(boundary) do need(n) end
  return saved, recompute
end

-- d: {name, step, gates, state (the option, for the header), new = {the new states, h's first},
-- outputs (the indexes of the states the step outputs, side by side), params (P), grads =
-- {gx = {}, gh = {}, states = {}, p = {}, x = the gradient at x, for a step that reads it}}.
-- Returns the C source and the layout {saved, h_prev, d_ih, d_hh, x, d_x} (x, d_x: 0 for none).
function M.generate(d)
  local G, P = d.gates, d.params
  local d_outputs = {}
  for k = 1, G do
    d_outputs[#d_outputs + 1] = d.grads.gx[k]
    d_outputs[#d_outputs + 1] = d.grads.gh[k]
  end
  for _, v in ipairs(d.grads.states) do d_outputs[#d_outputs + 1] = v end
  for _, v in ipairs(d.grads.p) do d_outputs[#d_outputs + 1] = v end
  if d.grads.x then d_outputs[#d_outputs + 1] = d.grads.x end
  local shared = true
  for k = 1, G do shared = shared and rawequal(d.grads.gx[k], d.grads.gh[k]) end

  -- backward's nodes, and the forward ones it reads
  local bwd, boundary = {}, {}
  for _, n in ipairs(graph.reachable(d_outputs, function(n) return n.fwd end)) do
    if not n.fwd then bwd[#bwd + 1] = n
    elseif n.op ~= 'const' then boundary[#boundary + 1] = n end
  end
  local saved, recompute = plan(boundary)

  local grads_end = (shared and G or 2 * G) + P -- the gradients' blocks, then d_x's
  local reads_x = d.grads.x ~= nil
  local blocks = math.max(#saved, grads_end + (reads_x and 1 or 0))
  local L = { saved = blocks + 1, h_prev = blocks, d_hh = 0, d_ih = shared and 0 or G + P,
              gates = G, output_of = {}, x = 0, d_x = 0 }
  if reads_x then L.x, L.d_x, L.h_prev, L.saved = blocks, grads_end, blocks + 1, blocks + 2 end
  for k, i in ipairs(d.outputs) do L.output_of[i] = k end

  local roots = { unpack(d.new) }
  for _, n in ipairs(saved) do roots[#roots + 1] = n end
  local fwd_list = graph.reachable(roots)
  local out = {
    '/* ' .. d.name .. ': generated by fused.cell.define from its step (F.source). Saved per row:',
    ' *   [' .. (function()
      local names = {}
      for i, n in ipairs(saved) do names[i] = name_of(n) end
      for i = #saved + 1, blocks do names[i] = '-' end
      if reads_x then names[#names + 1] = 'x' end
      names[#names + 1] = 'h_prev'
      return table.concat(names, ', ')
    end)() .. ']',
    ' * Register with gates = ' .. G .. ', state = ' .. d.state .. ', saved = ' .. L.saved
      .. ', d_ih = ' .. L.d_ih .. (P > 0 and ', params = ' .. P or '')
      .. (reads_x and ', x = ' .. L.x .. ', d_x = ' .. L.d_x or '')
      .. (#d.outputs > 1 and ', outputs = ' .. #d.outputs or '') .. '.',
    ' * The same text builds the CPU steps (as C, over vectors) and the CUDA ones (as CUDA, one',
    ' * element a thread: fused_cell_cuda.h). */',
    '#include <fused_ext.h>',
    '',
    'FUSED_CELL_FORWARD(' .. d.step .. ', {',
    '  VEC_FOR(H, j, m, {',
  }
  for _, n in ipairs(fwd_list) do
    if is_leaf(n) then out[#out + 1] = '    const vec ' .. name_of(n) .. ' = ' .. load_leaf(n, L) .. ';' end
  end
  emit(out, fwd_list, {})
  for i, n in ipairs(saved) do
    out[#out + 1] = string.format('    vstore(s + %s, %s, m);', block(i - 1), name_of(n))
  end
  out[#out + 1] = '    vstore(h_next + j, ' .. value(d.new[1]) .. ', m);'
  for k, i in ipairs(d.outputs) do
    out[#out + 1] = '    vstore(out + ' .. block(k - 1) .. ', ' .. value(d.new[i]) .. ', m);'
  end
  for k = 2, #d.new do
    out[#out + 1] = '    vstore(c + ' .. block(k - 2) .. ', ' .. value(d.new[k]) .. ', m);'
  end
  out[#out + 1] = '  })'
  out[#out + 1] = '})'
  out[#out + 1] = ''
  out[#out + 1] = 'FUSED_CELL_BACKWARD(' .. d.step .. ', {'
  out[#out + 1] = '  VEC_FOR(H, j, m, {'
  local is_saved = {}
  for i, n in ipairs(saved) do
    is_saved[n] = true
    out[#out + 1] = string.format('    const vec %s = vload(s + %s, m);', name_of(n), block(i - 1))
  end
  local body, leaves = {}, {}
  for _, n in ipairs(recompute) do body[#body + 1] = n end
  for _, n in ipairs(bwd) do body[#body + 1] = n end
  table.sort(body, function(x, y) return x.id < y.id end)
  for _, n in ipairs(body) do
    for _, a in ipairs(#n.args > 0 and n.args or { n }) do
      if is_leaf(a) and not is_saved[a] and not leaves[a] then
        leaves[a] = true
        out[#out + 1] = '    const vec ' .. name_of(a) .. ' = ' .. load_leaf(a, L) .. ';'
      end
    end
  end
  emit(out, body, is_saved)
  for k = 1, G do
    out[#out + 1] = string.format('    vstore(s + %s, %s, m);', block(L.d_hh + k - 1),
                                  value(d.grads.gh[k]))
  end
  for k = 1, P do
    out[#out + 1] = string.format('    vstore(s + %s, %s, m);', block(L.d_hh + G + k - 1),
                                  value(d.grads.p[k]))
  end
  if not shared then
    for k = 1, G do
      out[#out + 1] = string.format('    vstore(s + %s, %s, m);', block(L.d_ih + k - 1),
                                    value(d.grads.gx[k]))
    end
  end
  if reads_x then
    out[#out + 1] = '    vstore(s + ' .. block(L.d_x) .. ', ' .. value(d.grads.x) .. ', m);'
  end
  out[#out + 1] = '    vstore(dh + j, ' .. value(d.grads.states[1]) .. ', m);'
  for k = 2, #d.grads.states do
    out[#out + 1] = '    vstore(dc + ' .. block(k - 2) .. ', ' .. value(d.grads.states[k]) .. ', m);'
  end
  out[#out + 1] = '  })'
  out[#out + 1] = '})'
  if #out > LARGE_LINES then
    for i, line in ipairs(LARGE_PRAGMA) do table.insert(out, 5 + i, line) end
  end
  return table.concat(out, '\n') .. '\n', L
end

return M
