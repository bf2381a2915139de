-- The recurrent golden sets (golden/README.md) run by fused's sequence modules nn.LLTM, nn.LSTM
-- and nn.GRU, the cell sets as one step (T = 1): forward and backward of a case, every result
-- under its golden name, for a spec to compare with the stored tensor of that name.
local helper = require 'spec.helper'
local fused = helper.fused

local M = {}

-- Per set: the module; the golden names of forward's arguments (xs, h0[, c0]) and results (hs,
-- h_n[, c_n]), of backward's (d_hs, d_hn[, d_cn]) and results (d_xs, d_h0[, d_c0]), false where
-- the set stores no such tensor; params: the golden names of the module's parameters (nil: the
-- module's own), each one's gradient being d_<that name>; config: the case has a config.json.
local LLTM_PARAMS = { weight = 'W', bias = 'b' }
local CELL_PARAMS = { weight_ih_l0 = 'w_ih', weight_hh_l0 = 'w_hh', bias_ih_l0 = 'b_ih',
                      bias_hh_l0 = 'b_hh' }
local SEQ_CASES = { 'short', 'stacked', 'bidirectional', 'lengths' }
M.sets = {
  lltm_cell = { class = 'LLTM', params = LLTM_PARAMS,
                cases = { 'tiny', 'odd', 'tutorial', 'tall', 'saturated' },
                forward = { 'x', 'h', 'c' }, outputs = { false, 'new_h', 'new_c' },
                backward = { 'grad_h', false, 'grad_c' }, grads = { 'd_x', 'd_h', 'd_c' } },
  lltm_seq = { class = 'LLTM', params = LLTM_PARAMS, cases = { 'short', 'long' },
               forward = { 'xs', 'h0', 'c0' }, outputs = { 'hs', false, 'c_T' },
               backward = { 'r', false, 's' }, grads = { 'd_xs', 'd_h0', 'd_c0' } },
  lstm_cell = { class = 'LSTM', params = CELL_PARAMS, cases = { 'small', 'tutorial' },
                forward = { 'x', 'h', 'c' }, outputs = { false, 'new_h', 'new_c' },
                backward = { 'grad_h', false, 'grad_c' }, grads = { 'd_x', 'd_h', 'd_c' } },
  gru_cell = { class = 'GRU', params = CELL_PARAMS,
               cases = { 'tiny', 'odd', 'tutorial', 'saturated' },
               forward = { 'x', 'h' }, outputs = { false, 'new_h' },
               backward = { 'grad_h', false }, grads = { 'd_x', 'd_h' } },
  lstm_seq = { class = 'LSTM', config = true, cases = SEQ_CASES,
               forward = { 'xs', 'h0', 'c0' }, outputs = { 'hs', 'h_n', 'c_n' },
               backward = { 'r', 's_h', 's_c' }, grads = { 'd_xs', 'd_h0', 'd_c0' } },
  gru_seq = { class = 'GRU', config = true, cases = SEQ_CASES,
              forward = { 'xs', 'h0' }, outputs = { 'hs', 'h_n' },
              backward = { 'r', 's_h' }, grads = { 'd_xs', 'd_h0' } },
}

-- The golden tensors named by names, as the module takes them: a cell set's B×n tensors as one
-- step, 1×B×n, where the module wants three dimensions (xs and d_hs; the LSTM's and GRU's
-- states, (layers·directions)×B×H); false: nil.
local function arguments(g, names, m)
  local list = {}
  for i, name in ipairs(names) do
    local t = name and g[name] or nil
    if t and t:dim() == 2 and (i == 1 or not m.squeeze_state) then
      t = t:view(1, t:size(1), t:size(2))
    end
    list[i] = t
  end
  return list
end

-- fused's results on case of setname in dtype on device, the module made with opts besides
-- (compute =): {golden name = result}, each shaped as the golden tensor.
function M.run(setname, case, dtype, device, opts)
  local set, path = M.sets[setname], setname .. '/' .. case
  local g = helper.golden_case(path, dtype, device)
  local config = set.config and helper.golden_config(path) or {}
  local o = { num_layers = config.num_layers, bidirectional = config.bidirectional, dtype = dtype,
              device = device }
  for k, v in pairs(opts or {}) do o[k] = v end
  local I, H = g[set.forward[1]]:size(-1), g[set.forward[2]]:size(-1)
  local m = fused.nn[set.class](I, H, o)
  local function golden_name(name) return set.params and set.params[name] or name end
  for name, p in m:named_parameters() do p:copy(g[golden_name(name)]) end
  local results = {}
  local function keep(names, ...)
    for i, name in ipairs(names) do
      if name then results[name] = select(i, ...):contiguous():view(g[name]:shape()) end
    end
  end
  local x, h, c = unpack(arguments(g, set.forward, m), 1, 3)
  local run = { lengths = config.lengths }
  if m.has_c then keep(set.outputs, m:forward(x, h, c, run))
  else keep(set.outputs, m:forward(x, h, run)) end
  local d_hs, d_hn, d_cn = unpack(arguments(g, set.backward, m), 1, 3)
  if m.has_c then keep(set.grads, m:backward(d_hs, d_hn, d_cn))
  else keep(set.grads, m:backward(d_hs, d_hn)) end
  for name, _, grad in m:named_parameters() do results['d_' .. golden_name(name)] = grad end
  return results
end

return M
