-- examples/gcn.lua as a user runs it (a child luajit, 2,000 nodes): it prints its progress and
-- a held-out accuracy where the graph beats the features alone and the majority class.
local here = debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$')

describe('examples/gcn.lua', function()
  it('trains a GCN that beats the feature-only model and the majority class', function()
    local p = io.popen(string.format("LUA_PATH='%s../lua/?.lua;%s../lua/?/init.lua;;' luajit %s../examples/gcn.lua 2000 3 2>&1",
                                     here, here, here))
    local text = p:read('*a')
    p:close()
    assert.truthy(text:find('graph: 2000 nodes', 1, true), text)
    assert.truthy(text:find('GCN       cpu  epoch 200/200', 1, true), text)
    local gcn, features, majority = text:match('cpu  held%-out accuracy: GCN ([%d.]+), features only ([%d.]+), majority class ([%d.]+)')
    assert(gcn, text)
    gcn, features, majority = tonumber(gcn), tonumber(features), tonumber(majority)
    assert(gcn > features + 0.2 and gcn > majority + 0.5, text)
  end)
end)
