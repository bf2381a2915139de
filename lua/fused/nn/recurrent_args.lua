-- The one calling convention of every recurrent module over a sequence (nn.LSTM, nn.GRU,
-- nn.LLTM, nn.RNN, nn.Recurrent): forward(xs, <states in the cell's order>, {lengths = ...}),
-- backward(d_hs, <gradients at the final states in the same order>). The module's has_c says
-- whether the states are h alone or h, c. A lengths list or tensor in a state's or the options'
-- place (the older positional calls) is an error that says how to call.
local options = require 'fused.options'
local argcheck = require 'fused.check'
local blame = require 'fused.blame'

local M = {}

local function usage(module)
  return string.format('%s:forward(xs, h0%s, {lengths = ...})', module.__name,
                       module.has_c and ', c0' or '')
end

local count = require('fused.functional.args').count

-- h0, c0 (nil without a cell state) and opts from forward's arguments after xs; errors are
-- blamed on the user's line.
function M.forward(module, fn, ...)
  local h0, c0, opts
  if module.has_c then h0, c0, opts = ... else h0, opts = ... end
  local n, most = count(...), module.has_c and 3 or 2
  if n > most then
    blame(string.format('%s: expected at most %d arguments after xs, got %d (call %s)', fn, most,
                        n, usage(module)))
  end
  for _, s in ipairs({ { 'h0', h0 }, { 'c0', c0 } }) do
    if s[2] ~= nil and not argcheck.is_tensor(s[2]) then
      blame(string.format("%s: argument '%s' expected a tensor or nil, got %s (lengths go in the "
                          .. 'options: %s)', fn, s[1], argcheck.type_name(s[2]), usage(module)))
    end
  end
  if argcheck.is_tensor(opts) or (type(opts) == 'table' and opts[1] ~= nil) then
    blame(string.format("%s: argument 'opts' expected the options {lengths = ...}, got %s (the "
                        .. 'states are %s; call %s)', fn,
                        argcheck.is_tensor(opts) and 'a tensor' or 'a list',
                        module.has_c and 'h0, c0' or 'h0 only', usage(module)))
  end
  return h0, c0, options.check(opts, fn, { 'lengths' })
end

-- backward's arguments: d_hs, d_hn and, with a cell state, d_cn.
function M.backward(module, fn, ...)
  local n, most = count(...), module.has_c and 3 or 2
  if n > most then
    blame(string.format('%s: expected (d_hs, d_hn%s), got %d arguments', fn,
                        module.has_c and ', d_cn' or '', n))
  end
end

return M
