-- The cell engine as functions: one recurrent cell ('lstm', 'gru', 'lltm' or a cell from
-- fused.ext.cell) over a sequence,
-- one layer in one direction (nn.LSTM, nn.GRU and nn.LLTM stack them; docs/cells.md).
--
--   local hs, h_n, c_n, ctx = fused.functional.rnn_forward(cell, xs, w_ih, w_hh, b_ih, b_hh,
--                                                          h0, c0, {lengths =, reverse =,
--                                                                   compute =, heads =})
--   local d_xs, d_w_ih, d_w_hh, d_b_ih, d_b_hh, d_h0, d_c0 =
--     fused.functional.rnn_backward(ctx, d_hs, d_hn, d_cn)
--
-- xs T×B×I; h0 B×H (and c0, for the LSTM and LLTM, B×H; nil for the GRU; a defined cell of
-- K states after h takes them side by side, B×K·H); w_ih G·H×I, w_hh G·H×H, b_ih and b_hh G·H
-- (the LLTM: b_hh nil; a cell with P per-unit parameters: b_hh (G + P)·H, the parameters
-- after the biases, and d_b_hh their gradients) in PyTorch's gate order. hs T×B×H is zero at the
-- padded steps of a ragged batch; h_n and c_n are each sequence's state after its own last
-- step. lengths: a list of B step counts; reverse: steps from T down to 1; compute: nil or
-- 'bfloat16' (the products on bfloat16-rounded operands, float32 accumulation; backward takes
-- forward's, args.compute); heads: NH (default 1), w_hh then G·H×(H/NH), the blocks of a
-- block-diagonal recurrent matrix (docs/cells.md, Heads). d_hs, d_hn and d_cn
-- may be nil (zero). rnn_backward_accumulate ADDS the weight and bias gradients into the
-- tensors of `grads` ({d_w_ih, d_w_hh, d_b_ih, d_b_hh}) and returns d_xs, d_h0, d_c0. Backward
-- writes over ctx's saved activations, so it runs once per forward. {out = {...}} as in
-- lltm.lua; hs in out may be a view with a row stride (a direction's half of a wider output).
local ffi = require 'ffi'
local lib = require 'fused.lib'
local blame = require 'fused.blame'
local argcheck = require 'fused.check'
local out_ = require 'fused.ops.out'
local lengths_ = require 'fused.functional.lengths'
local args = require 'fused.functional.args'

local C = lib.C
local result, like = out_.result, out_.like
local outs, expect_dims, check = args.outs, args.expect_dims, args.check
local floating, optional = args.expect_floating, args.optional_floating
local M = {}

-- The built-in cells by name (fused.h's FUSED_CELLS), and those names for the error.
local CELLS, cell_names = {}, {}
for id = 0, C.FUSED_NUM_CELLS - 1 do
  local name = ffi.string(C.fused_rnn_cell(id).name)
  CELLS[name], cell_names[#cell_names + 1] = id, "'" .. name .. "'"
end
cell_names = table.concat(cell_names, ', ')
M.builtin_cells = CELLS -- name -> id, for fused.cell.define's names
local sizes = out_.sizes()

-- A built-in cell's name, or a spec from fused.ext.cell (its id a registered cell's).
local function cell_id(cell, fn)
  if type(cell) == 'table' and cell.linear then
    blame(string.format("%s: argument 'cell': the %s cell is linear, run by nn.RNN on the scan "
                        .. 'engine (fused.linear_scan), not by the cell engine', fn, cell.name))
  end
  local id = type(cell) == 'table' and cell.id or CELLS[cell]
  if type(id) ~= 'number' or id ~= math.floor(id) or C.fused_rnn_cell(id) == nil then
    blame(string.format("%s: argument 'cell' expected %s or a fused.ext.cell, got %s", fn,
                        cell_names, type(cell) == 'string' and "'" .. cell .. "'"
                        or argcheck.type_name(cell)))
  end
  return id
end

function M.rnn_forward(cell, xs, w_ih, w_hh, b_ih, b_hh, h0, c0, opts, ...)
  local fn = 'rnn_forward'
  args.no_more(fn, 9, ...)
  local o = outs(opts, fn, { 'out', 'lengths', 'reverse', 'compute', 'heads' })
  local id = cell_id(cell, fn)
  local compute = args.compute(opts and opts.compute, fn)
  expect_dims(xs, 3, fn, 'xs')
  expect_dims(h0, 2, fn, 'h0')
  floating(w_ih, fn, 'w_ih'); floating(w_hh, fn, 'w_hh'); floating(b_ih, fn, 'b_ih')
  -- the C API reads the heads from w_hh's columns: here they must be what opts.heads says
  local H = tonumber(h0.sizes[1])
  local heads = args.heads(opts and opts.heads, H, fn)
  if w_hh.ndim == 2 and tonumber(w_hh.sizes[1]) ~= H / heads then
    blame(string.format("%s: argument 'w_hh' expected %d columns (hidden size %d / heads %d), "
                        .. 'got shape %s', fn, H / heads, H, heads,
                        '[' .. table.concat(w_hh:shape(), ', ') .. ']'))
  end
  optional(b_hh, fn, 'b_hh'); optional(c0, fn, 'c0')
  local dtype, device = xs.scalar_type, xs.device_type
  -- a custom cell's CUDA steps are built on its first CUDA run (fused.ext.cell)
  if device == C.FUSED_CUDA and type(cell) == 'table' and cell.build_cuda then cell.build_cuda() end
  local T, B = tonumber(xs.sizes[0]), tonumber(xs.sizes[1])
  local outputs = type(cell) == 'table' and cell.outputs or 1 -- a defined cell's output states
  sizes[0], sizes[1], sizes[2] = xs.sizes[0], xs.sizes[1], outputs * h0.sizes[1]
  local hs = result(fn, o[1], 3, sizes, dtype, device)
  local h_n = like(fn, o[2], h0)
  local c_n = c0 ~= nil and like(fn, o[3], c0) or nil
  local ctx = args.out_ctx(o[4], fn, 4)
  sizes[2] = C.fused_rnn_saved_blocks(id) * h0.sizes[1]
  ctx.saved = result(fn, ctx.saved, 3, sizes, dtype, device)
  ctx.lengths = lengths_.check(opts and opts.lengths, T, B, fn)
  ctx.reverse = args.reverse(opts and opts.reverse, fn)
  check(C.fused_rnn_forward(id, hs, h_n, c_n, ctx.saved, xs, h0, c0, w_ih, w_hh, b_ih, b_hh,
                            ctx.lengths, ctx.reverse, compute), fn)
  ctx.compute = compute
  ctx.cell, ctx.xs, ctx.h0, ctx.w_ih, ctx.w_hh, ctx.b_hh = id, xs, h0, w_ih, w_hh, b_hh
  ctx.c0, ctx.consumed, ctx.kind = c0, false, fn
  return hs, h_n, c_n, ctx
end

local function backward(fn, ctx, d_hs, d_hn, d_cn, grads, accumulate, o_xs, o_h0, o_c0, names)
  args.expect_ctx(ctx, fn, 'rnn_forward')
  if ctx.consumed then
    blame(fn .. ": the ctx was already gone back through (backward runs once per forward)")
  end
  optional(d_hs, fn, 'd_hs'); optional(d_hn, fn, 'd_hn'); optional(d_cn, fn, 'd_cn')
  local d_xs, d_h0 = like(fn, o_xs, ctx.xs), like(fn, o_h0, ctx.h0)
  local d_c0 = ctx.c0 ~= nil and like(fn, o_c0, ctx.c0) or nil
  check(C.fused_rnn_backward(ctx.cell, d_xs, d_h0, d_c0, grads[1], grads[2], grads[3], grads[4],
                             d_hs, d_hn, d_cn, ctx.saved, ctx.xs, ctx.w_ih, ctx.w_hh, ctx.lengths,
                             ctx.reverse, accumulate, ctx.compute), fn, names)
  ctx.consumed = true
  return d_xs, d_h0, d_c0
end

function M.rnn_backward(ctx, d_hs, d_hn, d_cn, opts, ...)
  local fn = 'rnn_backward'
  args.no_more(fn, 5, ...)
  local o = outs(opts, fn)
  local grads = {}
  if type(ctx) == 'table' and ctx.kind == 'rnn_forward' then
    grads[1], grads[2] = like(fn, o[2], ctx.w_ih), like(fn, o[3], ctx.w_hh)
    sizes[0] = ctx.w_ih.sizes[0]
    local dtype, device = ctx.w_ih.scalar_type, ctx.w_ih.device_type
    grads[3] = result(fn, o[4], 1, sizes, dtype, device)
    if ctx.b_hh ~= nil then grads[4] = like(fn, o[5], ctx.b_hh) end
  end
  local d_xs, d_h0, d_c0 = backward(fn, ctx, d_hs, d_hn, d_cn, grads, 0, o[1], o[6], o[7])
  return d_xs, grads[1], grads[2], grads[3], grads[4], d_h0, d_c0
end

-- The C function's names for the tensors of `grads`.
local GRADS = { d_w_ih = 'grads[1]', d_w_hh = 'grads[2]', d_b_ih = 'grads[3]', d_b_hh = 'grads[4]' }

function M.rnn_backward_accumulate(ctx, d_hs, d_hn, d_cn, grads, opts, ...)
  local fn = 'rnn_backward_accumulate'
  args.no_more(fn, 6, ...)
  local o = outs(opts, fn)
  if type(grads) ~= 'table' or argcheck.is_tensor(grads) then
    blame(string.format("%s: argument 'grads' expected a list {d_w_ih, d_w_hh, d_b_ih, d_b_hh}, "
                        .. "got %s", fn, argcheck.type_name(grads)))
  end
  for i, name in ipairs({ 'd_w_ih', 'd_w_hh', 'd_b_ih', 'd_b_hh' }) do
    local g = grads[i]
    if i < 4 or g ~= nil then floating(g, fn, 'grads[' .. i .. ']') end
  end
  return backward(fn, ctx, d_hs, d_hn, d_cn, grads, 1, o[1], o[2], o[3], GRADS)
end

return M
