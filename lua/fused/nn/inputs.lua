-- The checks of what a module's forward (and backward) takes, made before any op runs, so that
-- an error names the module's method and the argument as its caller wrote it ('LSTM:forward',
-- 'h0'), at the caller's line (fused/blame.lua): the ops underneath would name themselves and
-- their own arguments. Every module computes in float32 or float64 (docs/nn.md): a bfloat16 or
-- float16 input is refused with the conversion to make, as fused.functional refuses it.
local blame = require 'fused.blame'
local args = require 'fused.functional.args'
local dt = require 'fused.dtype'
local argcheck = require 'fused.check'
local factory = require 'fused.factory'

local M = {}

local function shape_text(t) return '[' .. table.concat(t:shape(), ', ') .. ']' end
M.shape_text = shape_text

-- x: a float32 or float64 tensor; with `like` (a parameter of the module), of its dtype and
-- device.
function M.floating(x, fn, arg, like)
  args.expect_floating(x, fn, arg)
  if like and (x.scalar_type ~= like.scalar_type or x.device_type ~= like.device_type) then
    blame(string.format("%s: argument '%s' expected %s on %s (the module's), got %s on %s", fn, arg,
                        like.dtype, like.device, x.dtype, x.device))
  end
  return x
end

-- x (checked by floating) of the sizes `want` (a list), which `what` says in words.
function M.shaped(x, fn, arg, like, want, what)
  M.floating(x, fn, arg, like)
  local same = x.ndim == #want
  for d = 1, #want do same = same and x.sizes[d - 1] == want[d] end
  if not same then
    blame(string.format("%s: argument '%s' expected shape [%s] (%s), got %s", fn, arg,
                        table.concat(want, ', '), what, shape_text(x)))
  end
  return x
end

-- A module's own dtype (an id: its constructor's or to()'s) must compute, as its inputs must:
-- a 16-bit or integer module would run its forward in another dtype or not at all.
function M.module_dtype(dtype, fn, what)
  if not dt.computes_floating[dtype] then
    blame(string.format("%s: %s expected %s (the nn modules compute in those), got %s", fn, what,
                        dt.floating_names(), dt.dtype_names[dtype]))
  end
end

-- A class loss's backward d_loss: nil (1) or a number for reductions 'mean' and 'sum', a tensor
-- of the targets' shape (and the input's dtype and device) for 'none'.
function M.d_loss(d_loss, reduction, shape, like, fn)
  if d_loss == nil then return end
  if reduction ~= 'none' then
    if type(d_loss) ~= 'number' then
      blame(string.format("%s: argument 'd_loss' expected a number (reduction '%s'), got %s", fn,
                          reduction, argcheck.type_name(d_loss)))
    end
    return
  end
  M.shaped(d_loss, fn, 'd_loss', like, shape, "the targets', reduction 'none'")
end

-- Indices given as a Lua list (Embedding's, the class losses' targets) as an int64 tensor; a
-- list fused.tensor refuses is fn's error, about arg and its entries (indices[2]).
function M.index_list(list, fn, arg)
  local ok, t = pcall(factory.tensor, list, { dtype = 'int64' })
  if ok then return t end
  blame((t:gsub('^[^:]*:%d+: ', ''):gsub("^tensor: argument 'data'", fn .. ": argument '" .. arg .. "'")
          :gsub('data%[', arg .. '[')))
end

-- fn takes n arguments: anything after them (... holds it) is an error, not ignored.
M.no_more = args.no_more

return M
