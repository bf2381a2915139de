-- blame(message): error(message) at the user's line, the first frame out from the raiser whose
-- code is not the library's. A shared check is reached through helpers, method wrappers, tail
-- calls and modules calling modules, so no fixed level fits every public function that uses it.
local LIBRARY = debug.getinfo(1, 'S').source:match('^(@.*/)')

return function(message)
  local level = 2
  while true do
    local info = debug.getinfo(level, 'S')
    if not info or info.source:sub(1, #LIBRARY) ~= LIBRARY then break end
    level = level + 1
  end
  error(message, level) -- not a tail call, which would drop this frame from the count
end
