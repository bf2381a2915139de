-- What a reader may do with any file, shared by scripts/fuzz.lua and spec/fuzz_corpus_spec.lua:
-- return what it reads (tensors; any value for .t7), or raise an error whose message starts with "<function>: <path>: " and
-- shows nothing of fused's own code (a crash or a sanitizer report ends the process).
local fused = require 'fused'
local t7 = require 'fused.th.t7'

local M = {}

-- The readers by file kind: the public function's name and how to check what it returned.
M.readers = {
  npy = {
    name = 'load_npy', load = fused.load_npy,
    returned = function(t) return fused.is_tensor(t) end,
  },
  safetensors = {
    name = 'load', load = fused.load,
    returned = function(tensors, metadata)
      if type(tensors) ~= 'table' or type(metadata) ~= 'table' then return false end
      for name, t in pairs(tensors) do
        if type(name) ~= 'string' or not fused.is_tensor(t) then return false end
      end
      for k, v in pairs(metadata) do
        if type(k) ~= 'string' or type(v) ~= 'string' then return false end
      end
      return true
    end,
  },
  -- Any Lua value, from the binary format and from the ascii one.
  t7 = { name = 'torch.load', load = t7.load, returned = function() return true end },
  ['t7-ascii'] = { name = 'torch.load', load = function(path) return t7.load(path, 'ascii') end,
                   returned = function() return true end },
}

-- Lua's own error texts, and a position in a .lua file: signs of an error fused did not mean.
local internal = { 'attempt to ', 'bad argument', 'stack overflow', 'table index is',
                   'invalid value', 'not enough memory', '%.lua:%d+:' }

-- Loads path with the reader of `kind`. Returns ok (true: tensors came back), the error
-- message (nil when ok), and a problem (nil when the property holds).
function M.check(kind, path)
  local reader = M.readers[kind]
  local result = { pcall(reader.load, path) }
  if result[1] then
    if reader.returned(unpack(result, 2)) then return true end
    return true, nil, reader.name .. ' returned something other than tensors'
  end
  local err = result[2]
  if type(err) ~= 'string' then
    return false, tostring(err), 'a non-string error: ' .. tostring(err)
  end
  local prefix = reader.name .. ': ' .. path .. ': '
  if err:sub(1, #prefix) ~= prefix then
    return false, err, 'the message does not start with "' .. prefix .. '": ' .. err
  end
  for _, pattern in ipairs(internal) do
    if err:find(pattern) then return false, err, 'an internal error text: ' .. err end
  end
  return false, err
end

return M
