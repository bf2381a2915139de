-- The memory of this machine, for refusing a run that cannot fit before it allocates: RAM and
-- swap from /proc/meminfo, in bytes, or nil where there is no such file (then nothing is
-- refused: a bound that is not known is not guessed).
local M = {}

function M.host_bytes()
  local f = io.open('/proc/meminfo', 'r')
  if not f then return nil end
  local text = f:read(65536) or ''
  f:close()
  local ram, swap = text:match('MemTotal:%s*(%d+) kB'), text:match('SwapTotal:%s*(%d+) kB')
  if not ram then return nil end
  return (tonumber(ram) + (tonumber(swap) or 0)) * 1024
end

-- bytes as '3.2 GB'.
function M.text(bytes)
  for _, unit in ipairs({ { 2 ^ 40, 'TB' }, { 2 ^ 30, 'GB' }, { 2 ^ 20, 'MB' } }) do
    if bytes >= unit[1] then return string.format('%.1f %s', bytes / unit[1], unit[2]) end
  end
  return string.format('%.1f kB', bytes / 1024)
end

return M
