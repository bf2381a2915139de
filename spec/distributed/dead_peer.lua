-- Run by spec/distributed_spec.lua on 2 processes with a short FUSED_DIST_TIMEOUT: rank 1
-- leaves before the allreduce that rank 0 waits in.
local fused = require 'fused'
local dist = fused.distributed

if dist.init() == 1 then os.exit(0) end
dist.allreduce(fused.ones({ 1000 }))
print('rank 0: the allreduce returned without its peer')
