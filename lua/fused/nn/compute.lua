-- The recurrent modules' `compute` option (nn.LSTM, GRU, LLTM, RNN): nil, the module's dtype,
-- or 'bfloat16': every product of the cell engine on operands rounded to bfloat16 with float32
-- accumulation, PyTorch's CPU autocast rule (on the CPU and on CUDA alike), while parameters,
-- gradients, states and the optimizer stay float32 (docs/cells.md). A module option rather than
-- a global autocast mode: it is stated where the module is made, kept by it for backward and
-- saved in its repr, and no flag outside the module changes what a forward computes.
local blame = require 'fused.blame'

-- The checked value for a module of name `name` whose tensors are topts' dtype and device.
return function(value, name, topts)
  if value == nil then return nil end
  if value ~= 'bfloat16' then
    blame(string.format("%s: option 'compute' expected 'bfloat16' or nil (the module's dtype), "
                        .. "got %s", name, type(value) == 'string' and "'" .. value .. "'"
                        or tostring(value)))
  end
  if topts.dtype ~= 'float32' then
    blame(string.format("%s: option 'compute' 'bfloat16' expected a float32 module, got %s on %s "
                        .. "(bfloat16 products round float32 operands)", name, topts.dtype,
                        topts.device))
  end
  return value
end
