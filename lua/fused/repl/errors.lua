-- Errors as the REPL and `bin/fused script.lua` show them: a message that points at the user's
-- code ('input:3: Linear:forward: ...'), not at the fused file that raised it, and no traceback.
-- A message with lines of its own keeps them (fused.ext.load's has the compiler's errors). Most of fused's
-- errors already name the caller's line; one raised deep inside (an op called by a module) is
-- re-pointed at the innermost frame of the user's code. The full traceback is kept for
-- :traceback and --traceback.
local M = {}

-- The folder of fused's Lua files ('lua/fused/' in a checkout), as positions in messages show it.
local root = debug.getinfo(1, 'S').source:match('^@(.*/)repl/[^/]*$') or ''

-- Whether a file named in an error position (short_src: maybe cut to '...tail') is one of fused's
-- own: its path after the last 'fused/' names a file in fused's folder.
function M.is_internal(path)
  if path:sub(1, 1) == '[' then return true end -- [C], [string "..."]: never the user's line
  local rel = path:match('.*fused/(.-%.lua)$')
  if not rel then return false end
  local f = io.open(root .. rel, 'rb')
  if f then f:close() end
  return f ~= nil
end

-- 'file:line' of the innermost frame at or above `level` whose code is the user's, or nil.
local function user_position(level)
  while true do
    local info = debug.getinfo(level + 1, 'Sl')
    if not info then return nil end
    if info.currentline > 0 and not M.is_internal(info.short_src) then
      return info.short_src .. ':' .. info.currentline
    end
    level = level + 1
  end
end

-- The message pointed at `where` (the user's position) when it points into fused or nowhere
-- (an error whose level missed the user's frame), without a traceback written into it.
function M.clean(message, where)
  local text = tostring(message)
  local path, rest = text:match('^(.-):%d+: (.*)$')
  if where and path and M.is_internal(path) then
    text = where .. ': ' .. rest
  elseif where and not path and type(message) == 'string' then
    text = where .. ': ' .. text
  end
  return (text:gsub('\nstack traceback:\n.*$', ''))
end

-- The traceback without the frames below the user's code (xpcall and the REPL itself).
local function trim(traceback)
  local lines = {}
  for line in traceback:gmatch('[^\n]+') do
    if line:find("in function 'xpcall'", 1, true) then break end
    lines[#lines + 1] = line
  end
  return table.concat(lines, '\n')
end

-- The handler for xpcall: {message = the cleaned message, traceback = the full text}.
function M.handler(err)
  return { message = M.clean(err, user_position(2)), traceback = trim(debug.traceback(tostring(err), 2)) }
end

return M
