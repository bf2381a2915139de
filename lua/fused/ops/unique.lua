-- fused.unique(t, {sorted = true, return_inverse = false, return_counts = false}): the distinct
-- elements of t, flattened, in ascending order (sorted = false is accepted and sorts too, which
-- PyTorch allows); then, when asked, the inverse (int64 of t's shape: where each element of t
-- lies in the result, counted from 1) and the counts (int64, one per distinct element). NaNs are
-- distinct from one another, as NaN ~= NaN. Built on sort, cumsum and nonzero: the CPU's only so
-- far.
local options = require 'fused.options'
local argcheck = require 'fused.check'
local blame = require 'fused.blame'
local factory = require 'fused.factory'
local scan = require 'fused.ops.scan'
local select_ = require 'fused.ops.select'
local cat = require('fused.ops.cat').cat

local M = {}
local accepted = { 'sorted', 'return_inverse', 'return_counts' }

function M.unique(t, opts)
  argcheck.expect(t, 'unique', 'input')
  opts = options.check(opts, 'unique', accepted)
  for _, name in ipairs(accepted) do
    if opts[name] ~= nil and type(opts[name]) ~= 'boolean' then
      blame(string.format("unique: option '%s' expected a boolean, got %s", name,
                          argcheck.type_name(opts[name])))
    end
  end
  if t.device ~= 'cpu' then -- as sort's error would, naming unique
    blame("unique: not implemented for " .. t.device .. " tensors yet; call :to('cpu') first")
  end
  local n = t:numel()
  local values, order = scan.sort(t:reshape(-1), 1)
  -- starts[k] is 1 where a run of equal sorted values begins
  local starts = factory.ones({ math.min(n, 1) }, { dtype = 'int64' }) -- none for an empty t
  if n > 1 then
    local differs = values:narrow(1, 2, n - 1):ne(values:narrow(1, 1, n - 1))
    starts = cat({ starts, differs:to('int64') }, 1)
  end
  local first = select_.nonzero(starts):view(-1) -- each run's first position
  local result = { select_.index_select(values, 1, first) }
  if opts.return_inverse then
    -- run ids in sorted order, put back in t's order through the inverse permutation
    local _, unsort = scan.sort(order, 1)
    result[#result + 1] = select_.index_select(scan.cumsum(starts, 1), 1, unsort):view(t:shape())
  end
  if opts.return_counts then
    local m = first:numel()
    local ends = factory.full({ math.min(m, 1) }, n + 1, { dtype = 'int64' })
    if m > 1 then ends = cat({ first:narrow(1, 2, m - 1), ends }, 1) end
    result[#result + 1] = ends - first
  end
  return unpack(result)
end

return M
