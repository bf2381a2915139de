-- Writing files whole or not at all: into a temporary file beside the target, renamed over it
-- once everything is written, so a crash never leaves a half-written file at the path.
local M = {}

-- Writes the strings of `chunks` in order to path; errors name `fn` (the public function).
function M.write_atomic(fn, path, chunks)
  local tmp = string.format('%s.tmp%d', path, math.random(1, 1e9))
  local f, err = io.open(tmp, 'wb')
  if not f then error(fn .. ': ' .. err, 3) end
  local ok, werr = true, nil
  for i = 1, #chunks do
    ok, werr = f:write(chunks[i])
    if not ok then break end
  end
  local closed, cerr = f:close()
  if not (ok and closed) then
    os.remove(tmp)
    error(fn .. ': writing ' .. path .. ': ' .. tostring(werr or cerr), 3)
  end
  local renamed, rerr = os.rename(tmp, path)
  if not renamed then
    os.remove(tmp)
    error(fn .. ': ' .. rerr, 3)
  end
end

return M
