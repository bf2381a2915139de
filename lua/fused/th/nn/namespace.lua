-- The table Torch7's `nn` names: lua/fused/th/nn.lua fills it with the classes of this folder,
-- each file adds its own (class.class('nn.Linear', 'nn.Module', nn)).
return {}
