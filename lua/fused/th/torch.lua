-- Torch7's `torch` package inside `fused th` (lua/fused/th/init.lua).
local class = require 'fused.th.class'

local torch = {}

torch.class = class.class
torch.getmetatable = class.metatable
torch.typename = class.typename
torch.isTypeOf = class.is_type_of
torch.factory = class.factory

return torch
