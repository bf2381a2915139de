-- The layers of a linear cell (fused.cell.define{linear = true}) for RNNBase: no recurrent
-- weights. One layer-direction is the input GEMM over all T·B rows (gx = x W_ihᵀ + b_ih), one
-- pass computing every step's coefficients A and b (the cell's generated C), and the scan
-- engine (fused.linear_scan: h_t = A_t h_{t-1} + b_t, S states per unit). Backward is the
-- scan's reverse pass (d_A, d_b, d_h0), the coefficients' backward (d_gx, d_p, d_x where the
-- step reads x) and the GEMMs' (d_W_ih, d_b_ih, d_xs). Parameters, in PyTorch's manner:
-- weight_ih_l0 (G·H×I), bias_ih_l0 (G·H), then the cell's per-unit ones (H each).
-- compute = 'bfloat16': the GEMMs' operands rounded to bfloat16, float32 accumulation.
local fused_ops = require 'fused.ops'
local linear_scan = require 'fused.ops.linear_scan'
local scan_options = require 'fused.ops.scan_options'
local cell_params = require 'fused.nn.cell_params'
local factory = require 'fused.factory'
local blame = require 'fused.blame'
local lengths_ = require 'fused.functional.lengths'

local M = {}
local pad_zero

local function per_layer(self) return 1 + (self.has_bias and 1 or 0) + #self.cell.params end

function M.add_layer(self, l, suffix, in_size, opts)
  local H, cell = self.hidden_size, self.cell
  if cell.reads_x and in_size ~= H then
    blame(string.format("RNN: cell '%s' reads x, the layer's input at its unit, which needs the "
                        .. 'input size to equal hidden_size (%d); layer %d takes %d', cell.name, H,
                        l, in_size))
  end
  local stdv = 1 / math.sqrt(H) -- PyTorch's initialisation
  self:parameter('weight_ih' .. suffix, { self.gates * H, in_size }, opts):uniform(-stdv, stdv)
  if self.has_bias then
    self:parameter('bias_ih' .. suffix, { self.gates * H }, opts):uniform(-stdv, stdv)
  end
  cell_params.add(self, cell, suffix, H, opts)
end

-- Layer-direction k's parameters and gradients: w, b (nil without biases), the per-unit ones.
local function layer(self, k)
  local n, per = self.parameter_names, per_layer(self)
  local p, g = {}, {}
  for i = 1, per do
    p[i], g[i] = self[n[per * (k - 1) + i]], self.grad[n[per * (k - 1) + i]]
  end
  local b, db = nil, nil
  if self.has_bias then b, db = p[2], g[2] end
  local first = self.has_bias and 3 or 2
  return p[1], b, { unpack(p, first, per) }, g[1], db, { unpack(g, first, per) }
end

-- An operand of the GEMMs as compute says: itself, or rounded to bfloat16.
local function operand(self, t)
  if self.compute == 'bfloat16' then return t:bfloat16():float() end
  return t
end

-- Row t of each sequence that holds its final states: its last (forward) or first (reverse);
-- lengths as lengths_.check gives them (0-based).
local function last_step(lengths, T, b, reverse)
  if reverse then return 1 end
  return lengths and tonumber(lengths[b - 1]) or T
end

-- Zeroes t (T x B x ...) at each sequence's steps past its length (lengths as lengths_.check
-- gives them, or nil).
pad_zero = function(t, lengths, T, B)
  if not lengths then return end
  for b = 1, B do
    local n = tonumber(lengths[b - 1])
    if n < T then t:narrow(1, n + 1, T - n):select(2, b):zero_() end
  end
end

-- forward's option resets (fn the caller's name): nil, or a bool tensor of xs's T x B (B x T
-- when batch_first) on its device, no reset past a row's length; returned time-major, a copy:
-- backward goes back through forward's resets whatever the caller writes in theirs after, as
-- through its lengths.
function M.check_resets(self, fn, resets, xs, lengths)
  if resets == nil then return nil end
  local batch_first = self.batch_first
  local T, B = xs:size(batch_first and 2 or 1), xs:size(batch_first and 1 or 2)
  local want = batch_first and { B, T } or { T, B }
  scan_options.expect_resets(resets, fn, want, batch_first and 'B, T' or 'T, B', xs.device)
  if batch_first then resets = resets:t() end
  resets = resets:clone()
  if lengths then
    scan_options.resets_within(resets, lengths_.check(lengths, T, B, fn), T, B, fn, 'sequence')
  end
  return resets
end

-- The reverse direction's resets of the forward's (T x B, time-major): a reset marks the
-- first step of a segment, so the reverse direction starts afresh at each segment's last
-- step, the step before a reset (and its step there reads reset = 1). A row's last step
-- reads 0: no reset lies past a row's length.
local function reverse_resets(self, resets)
  local T = resets:size(1)
  local r = self:buffer_shaped('resets_reverse', resets:shape(), resets):zero_()
  if T > 1 then r:narrow(1, 1, T - 1):copy_(resets:narrow(1, 2, T - 1)) end
  return r
end

function M.run_layer(self, k, x, h0, c0, lengths, reverse, out, resets)
  if resets and reverse then resets = reverse_resets(self, resets) end
  local cell, H, G, S = self.cell, self.hidden_size, self.gates, #self.cell.states
  local T, B, I = x:size(1), x:size(2), x:size(3)
  local w, bias, params = layer(self, k)
  local xf = x:contiguous():view(T * B, I)
  local gx = bias and fused_ops.addmm(bias, operand(self, xf), operand(self, w):t())
    or fused_ops.matmul(operand(self, xf), operand(self, w):t())
  local pv = nil
  if #params > 0 then
    pv = self:buffer_shaped('linear_params' .. k, { #params, H }, x)
    for i, p in ipairs(params) do pv:select(1, i):copy_(p) end
  end
  local flat_resets = resets and resets:contiguous():view(T * B) or nil
  local xr = cell.reads_x and xf or nil
  local function alloc(name, shape, like) -- the passes' results: this layer's buffers
    return self:buffer_shaped('linear_' .. name .. k, shape, like)
  end
  local A, b = cell.coefficients(gx, pv, xr, flat_resets, alloc)
  local h0s = factory.empty({ B, S, H }, { dtype = x.dtype, device = x.device })
  h0s:select(2, 1):copy_(h0)
  if S > 1 then h0s:narrow(2, 2, S - 1):copy_(c0:contiguous():view(B, S - 1, H)) end
  lengths = lengths_.check(lengths, T, B, 'RNN:forward') -- a copy, kept for backward
  local opts = { lengths = lengths and lengths_.list(lengths, B), resets = resets,
                  reverse = reverse }
  local A5 = A:view(T, B, S, S, H)
  local h = linear_scan.linear_scan(A5, b:view(T, B, S, H), h0s, opts)
  local hs, h_n, c_n = out[1], out[2], out[3]
  if cell.computes_outputs then -- outputs of the new states (the SRU's h), zero past a length
    local O = #cell.output_index
    local y = cell.compute_outputs(gx, pv, xr, flat_resets, h:view(T * B, S * H), alloc)
    hs:copy_(y:view(T, B, O * H))
    pad_zero(hs, lengths, T, B)
  else
    for o, i in ipairs(cell.output_index) do
      hs:narrow(3, (o - 1) * H + 1, H):copy_(h:select(3, i))
    end
  end
  for r = 1, B do
    local final = h:select(1, last_step(lengths, T, r, reverse)):select(1, r)
    h_n:select(1, r):copy_(final:select(1, 1))
    if S > 1 then c_n:select(1, r):view(S - 1, H):copy_(final:narrow(1, 2, S - 1)) end
  end
  return { xf = xf, gx = gx, pv = pv, xr = xr, resets = flat_resets, A = A5, h = h, h0s = h0s,
           lengths = lengths, opts = opts, T = T, B = B, I = I, alloc = alloc }
end

function M.back_layer(self, k, ctx, d_hs, d_hn, d_cn, out)
  local cell, H, S = self.cell, self.hidden_size, #self.cell.states
  local T, B = ctx.T, ctx.B
  local w, _, _, dw, db, dps = layer(self, k)
  local lengths = ctx.lengths
  local n = T * B
  local d_h, out_grads
  if cell.computes_outputs then -- the outputs' pass backward: into the new states and more
    local O = #cell.output_index
    local d_y = d_hs:contiguous()
    if lengths then -- a padded output is 0 whatever its inputs: no gradient through it
      d_y = d_y:clone()
      pad_zero(d_y, lengths, T, B)
    end
    local d_ns
    out_grads = {}
    d_ns, out_grads[1], out_grads[2], out_grads[3] = cell.compute_outputs_backward(
      ctx.gx, ctx.pv, ctx.xr, ctx.resets, ctx.h:view(n, S * H), d_y:view(n, O * H), ctx.alloc)
    d_h = d_ns:view(T, B, S, H)
  else
    d_h = ctx.alloc('d_h', { T, B, S, H }, ctx.h):zero_()
    for o, i in ipairs(cell.output_index) do
      d_h:select(3, i):add_(d_hs:narrow(3, (o - 1) * H + 1, H))
    end
  end
  for r = 1, B do
    local at = d_h:select(1, last_step(lengths, T, r, ctx.opts.reverse)):select(1, r)
    if d_hn then at:select(1, 1):add_(d_hn:select(1, r)) end
    if d_cn and S > 1 then at:narrow(1, 2, S - 1):add_(d_cn:select(1, r):view(S - 1, H)) end
  end
  local d_A, d_b, d_h0s = linear_scan.linear_scan_backward(d_h, ctx.A, ctx.h, ctx.h0s, ctx.opts)
  local d_gx, d_p, d_x = cell.coefficients_backward(ctx.gx, ctx.pv, ctx.xr, ctx.resets,
                                                    d_A:view(n, S * S * H), d_b:view(n, S * H),
                                                    ctx.alloc)
  if out_grads then
    d_gx:add_(out_grads[1])
    if out_grads[2] then d_p:add_(out_grads[2]) end
    if out_grads[3] then d_x = d_x and d_x:add_(out_grads[3]) or out_grads[3] end
  end
  dw:addmm_(operand(self, d_gx):t(), operand(self, ctx.xf))
  if db then db:add_(d_gx:sum(1):view(db:size(1))) end
  for i, g in ipairs(dps) do g:add_(d_p:select(1, i)) end
  local d_xs = out[1]:view(n, ctx.I)
  fused_ops.matmul(operand(self, d_gx), operand(self, w), { out = d_xs })
  if d_x then d_xs:add_(d_x) end
  out[2]:copy_(d_h0s:select(2, 1))
  if S > 1 then out[3]:view(B, S - 1, H):copy_(d_h0s:narrow(2, 2, S - 1)) end
end

return M
