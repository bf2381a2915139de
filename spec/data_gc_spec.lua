-- The data paths (fused.data's tasks and graphs) under forced garbage collections and
-- scribbled freed memory: every batch, held-out set, graph and text sample is the same, bit for
-- bit, as without them. A value read through memory that nothing keeps alive changes, or the
-- run crashes.
local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'

local text_path = os.tmpname()

-- The lines of spec/data_batches.lua, by name, as lists of values; asserts it ran to the end.
local function batches(env, mode)
  local out = text_path .. '.out'
  local status = os.execute(string.format('%s luajit %sdata_batches.lua %s %s > %s 2>&1', env, here,
                                          text_path, mode, out))
  local f = assert(io.open(out, 'rb'))
  local text = f:read('*a')
  f:close()
  os.remove(out)
  assert(status == 0, string.format('data_batches.lua %s: exit status %s:\n%s', mode, tostring(status),
                                    text:sub(-2000)))
  local lines, names = {}, {}
  for line in text:gmatch('[^\n]+') do
    local name, values = line:match('^(.-)\t(.*)$')
    local list = {}
    for v in values:gmatch('%S+') do list[#list + 1] = v end
    lines[name], names[#names + 1] = list, name
  end
  return lines, names
end

describe('fused.data under forced collections', function()
  teardown(function() os.remove(text_path) end)

  it('makes the same batches, held-out sets, graphs and text samples, bit for bit', function()
    local f = assert(io.open(text_path, 'wb'))
    for i = 1, 400 do f:write(('line %d: the quick brown fox jumps over the lazy dog\n'):format(i)) end
    f:close()
    local clean, names = batches('', '')
    local forced = batches('MALLOC_PERTURB_=165', 'forced')
    assert.are.equal(17, #names) -- 3 tasks x 2 tensors x (batch, held-out), a graph's 3, 2 samples
    for _, name in ipairs(names) do
      local a, b = clean[name], forced[name]
      assert(b, name .. ': missing from the forced run')
      assert.are.equal(#a, #b, name)
      local differ = 0
      for i = 1, #a do if a[i] ~= b[i] then differ = differ + 1 end end
      assert(differ == 0, string.format('%s: %d of %d values differ under forced collections', name,
                                        differ, #a))
    end
  end)
end)
