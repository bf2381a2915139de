-- The file a class's own read(file, version) and write(file) methods get, as torch7's
-- torch.File: readObject/writeObject and the scalar reads and writes (readInt, writeDouble...).
local M = {}

function M.reader(r)
  local d = r.d
  return {
    readObject = function() return r:object() end,
    readInt = function() return d:int('an int') end,
    readLong = function() return d:long('a long') end,
    readFloat = function() return d:float('a float') end,
    readDouble = function() return d:double('a double') end,
    readBool = function() return d:int('a boolean') == 1 end,
  }
end

function M.writer(w)
  local e = w.e
  return {
    writeObject = function(_, v) w:object(v) end,
    writeInt = function(_, v) e:int(v) end,
    writeLong = function(_, v) e:long(v) end,
    writeFloat = function(_, v) e:float(v) end,
    writeDouble = function(_, v) e:double(v) end,
    writeBool = function(_, v) e:int(v and 1 or 0) end,
  }
end

return M
