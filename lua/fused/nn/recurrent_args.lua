-- The one calling convention of every recurrent module over a sequence (nn.LSTM, nn.GRU,
-- nn.LLTM, nn.RNN, nn.Recurrent): forward(xs, <states in the cell's order>, {lengths = ...}),
-- backward(d_hs, <gradients at the final states in the same order>). The module's
-- state_names (nn.RNN over a cell of several states: {'h', 'c', 'n', 'm'}), else its has_c,
-- says which states it has: h alone, or h, c. A lengths list or tensor in a state's or the
-- options' place (the older positional calls) is an error that says how to call.
local options = require 'fused.options'
local argcheck = require 'fused.check'
local blame = require 'fused.blame'

local M = {}

-- The module's states' names: {'h'}, {'h', 'c'} or its cell's list.
function M.names(module)
  return module.state_names or (module.has_c and { 'h', 'c' } or { 'h' })
end

-- 'h0, c0' or 'd_hn, d_cn' for the module's states.
local function list(module, prefix, suffix)
  local t = {}
  for i, s in ipairs(M.names(module)) do t[i] = prefix .. s .. suffix end
  return table.concat(t, ', ')
end

local function usage(module)
  return string.format('%s:forward(xs, %s, {lengths = ...})', module.__name, list(module, '', '0'))
end

local count = require('fused.functional.args').count

-- The initial states (a list: h0, c0, ...; nil ones are zeros) and opts from forward's
-- arguments after xs; errors are blamed on the user's line.
function M.forward(module, fn, ...)
  local names = M.names(module)
  local n, most = count(...), #names + 1
  local states = { ... }
  local opts = states[#names + 1]
  if n > most then
    blame(string.format('%s: expected at most %d arguments after xs, got %d (call %s)', fn, most,
                        n, usage(module)))
  end
  for i, s in ipairs(names) do
    local t = states[i]
    if t ~= nil and not argcheck.is_tensor(t) then
      blame(string.format("%s: argument '%s0' expected a tensor or nil, got %s (lengths go in the "
                          .. 'options: %s)', fn, s, argcheck.type_name(t), usage(module)))
    end
  end
  if argcheck.is_tensor(opts) or (type(opts) == 'table' and opts[1] ~= nil) then
    blame(string.format("%s: argument 'opts' expected the options {lengths = ...}, got %s (the "
                        .. 'states are %s; call %s)', fn,
                        argcheck.is_tensor(opts) and 'a tensor' or 'a list',
                        #names == 1 and 'h0 only' or list(module, '', '0'), usage(module)))
  end
  return { unpack(states, 1, #names) }, options.check(opts, fn, { 'lengths', 'resets' })
end

-- backward's arguments: d_hs, then the gradients at the final states (d_hn, d_cn, ...).
function M.backward(module, fn, ...)
  local n, most = count(...), #M.names(module) + 1
  if n > most then
    blame(string.format('%s: expected (d_hs, %s), got %d arguments', fn,
                        list(module, 'd_', 'n'), n))
  end
end

return M
