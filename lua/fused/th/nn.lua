-- Torch7's nn package inside `fused th` (require 'nn'), its classes in lua/fused/th/nn/: the
-- global nn, as Torch7's require 'nn' made it.
local nn = require 'fused.th.nn.namespace'

for _, file in ipairs({ 'Module', 'Container', 'Sequential', 'ConcatTable', 'ParallelTable', 'Native',
                        'Linear', 'LookupTable', 'pointwise', 'softmax', 'Dropout', 'Identity', 'View',
                        'Narrow', 'Sum', 'ctable', 'JoinTable', 'SplitTable', 'SelectTable',
                        'Criterion', 'criterions' }) do
  require('fused.th.nn.' .. file)
end

rawset(_G, 'nn', nn)
return nn
