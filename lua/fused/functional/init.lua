-- Function-style ops, the counterpart of torch.nn.functional and torch.autograd.Function: the
-- LLTM cell and sequence (lltm.lua), the cell engine (rnn.lua), embedding and cross-entropy
-- (embedding.lua, cross_entropy.lua), the optimizer updates (optim.lua). Outputs take
-- {out = ...} last, as every op (fused/ops/out.lua): for several outputs, a list in the order
-- they are returned. A kind's `as` table (not public) holds its functions taking first the
-- public name their errors go under: a module's method, when a module calls them.
local M = {}
for _, kind in ipairs({ 'lltm', 'rnn', 'embedding', 'cross_entropy', 'nll_loss', 'optim' }) do
  for name, f in pairs(require('fused.functional.' .. kind)) do
    if type(f) == 'function' then M[name] = f end
  end
end
-- Wrapped by the tape under 'fused.functional.' .. name: its rules (autograd/rules/functional.lua).
return require('fused.autograd.tape').guard(M, 'fused.functional.')
