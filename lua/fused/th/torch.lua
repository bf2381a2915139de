-- Torch7's `torch` package inside `fused th` (lua/fused/th/init.lua).
local class = require 'fused.th.class'

local torch = {}

torch.class = class.class
torch.getmetatable = class.metatable
torch.typename = class.typename
torch.isTypeOf = class.is_type_of
torch.factory = class.factory

-- .t7 files (lua/fused/th/t7/)
local t7 = require 'fused.th.t7'
torch.save, torch.load = t7.save, t7.load
torch.serialize, torch.deserialize = t7.serialize, t7.deserialize

return torch
