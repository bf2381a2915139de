-- The fuzzer's kept inputs (spec/fuzz/corpus, see scripts/fuzz.lua): each one loads or fails
-- with a message that names the reader and the file, and shows nothing of fused's code.
local property = require 'spec.fuzz.property'

local root = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'fuzz/corpus/'

describe('the fuzz corpus', function()
  for kind in pairs(property.readers) do
    local list = io.popen('ls ' .. root .. kind)
    local count = 0
    for name in list:lines() do
      count = count + 1
      it(kind .. '/' .. name, function()
        local _, _, problem = property.check(kind, root .. kind .. '/' .. name)
        assert(not problem, problem)
      end)
    end
    list:close()
    it('holds ' .. kind .. ' inputs', function() assert.is_true(count > 0) end)
  end
end)
