-- What the REPL does with the text typed so far: compile it as an expression (whose values are
-- printed) or as statements, or say that it is incomplete and needs more lines.
--
-- Each chunk is a function of its own, so a `local` would end with its line. A `local` at the
-- chunk's top level (outside any function or block) is therefore rewritten into an assignment
-- to the REPL's environment table, where the next chunks find it:
--   local x = 1           ->  x = 1
--   local a, b            ->  a, b = nil
--   local function f() .. ->  function f() ..
-- Locals inside functions and blocks stay local. The rewriting keeps every line where it was,
-- so error positions still count the user's lines.
local M = {}

-- Keywords that open a block ('if', 'do' of while/for, ...) or close one.
local DEPTH = { ['function'] = 1, ['do'] = 1, ['if'] = 1, ['repeat'] = 1, ['end'] = -1, ['until'] = -1 }

-- The position just past a long bracket's close (']==]' for level 2) from i, or past the end.
local function long_bracket_end(src, i, level)
  local _, stop = src:find(']' .. string.rep('=', level) .. ']', i, true)
  return (stop or #src) + 1
end

-- The tokens of src that matter here: names and punctuation, with their positions. Strings,
-- comments and numbers are skipped; an unfinished one runs to the end (the compiler reports it).
local function tokens(src)
  local list, i, n = {}, 1, #src
  while i <= n do
    local c = src:sub(i, i)
    local level = src:match('^%[(=*)%[', i)
    if c:match('%s') then
      i = i + 1
    elseif src:sub(i, i + 1) == '--' then
      level = src:match('^%-%-%[(=*)%[', i)
      if level then
        i = long_bracket_end(src, i + 4 + #level, #level)
      else
        i = (src:find('\n', i, true) or n) + 1
      end
    elseif level then
      i = long_bracket_end(src, i + 2 + #level, #level)
    elseif c == '"' or c == "'" then
      i = i + 1
      while i <= n do
        local d = src:sub(i, i)
        if d == '\\' then i = i + 1 elseif d == c or d == '\n' then break end
        i = i + 1
      end
      i = i + 1
    elseif c:match('[%a_]') then
      local name = src:match('^[%w_]+', i)
      list[#list + 1] = { text = name, start = i, stop = i + #name - 1 }
      i = i + #name
    elseif src:match('^%.?%d', i) then
      i = i + #src:match('^%.?%d[%w_%.]*', i)
      if src:match('^[eEpP][%+%-]', i - 1) then i = i + #src:match('^[%+%-][%w_%.]*', i) end
    else
      local op = src:match('^==', i) or c
      list[#list + 1] = { text = op, start = i, stop = i + #op - 1 }
      i = i + #op
    end
  end
  return list
end

-- src with its top-level locals made assignments to the environment (see above).
function M.globalize_locals(src)
  local toks, depth, edits = tokens(src), 0, {}
  for k, tok in ipairs(toks) do
    if tok.text == 'local' and depth == 0 then
      local after = toks[k + 1]
      if after and after.text == 'function' then
        edits[#edits + 1] = { tok.start, after.start - 1, '' }
      else
        -- local name {, name}: without '=' the names are set to nil, as the local would be
        local last = k + 1
        while toks[last + 1] and toks[last + 1].text == ',' and toks[last + 2] do last = last + 2 end
        local assigns = toks[last + 1] and toks[last + 1].text == '='
        edits[#edits + 1] = { tok.start, tok.stop, '' }
        if not assigns and toks[last] then
          edits[#edits + 1] = { toks[last].stop + 1, toks[last].stop, ' = nil' }
        end
      end
    end
    depth = depth + (DEPTH[tok.text] or 0)
  end
  for e = #edits, 1, -1 do
    local first, last, text = edits[e][1], edits[e][2], edits[e][3]
    src = src:sub(1, first - 1) .. text .. src:sub(last + 1)
  end
  return src
end

local function identity(...) return ... end

local function ends_at_eof(err) return err:sub(-7) == "'<eof>'" end

-- Compiles src under chunkname ('=input': errors read 'input:1: ...') with env as its globals.
-- Returns a function to call and whether src is an expression (whose values it returns); or nil
-- and 'incomplete' when more lines could finish src (the compiler stopped at the end of the
-- text, as lua.c decides); or nil and the syntax error.
function M.compile(src, chunkname, env)
  -- An expression is passed to a function rather than returned: `return f(x)` would be a tail
  -- call, whose frame (the user's line) is gone from the stack by the time f raises.
  -- The ')' goes on the last line, where Lua places the last index's error; after a newline only
  -- when a comment ends that line.
  local f = loadstring('return (...)(' .. src .. ')', chunkname)
    or loadstring('return (...)(' .. src .. '\n)', chunkname)
  if f then
    setfenv(f, env)
    return function() return f(identity) end, true
  end
  local err
  f, err = loadstring(M.globalize_locals(src), chunkname)
  if f then return setfenv(f, env), false end
  -- More lines could finish it as statements, or as an expression ('{1,' at the end of a line).
  local _, expression_err = loadstring('return ' .. src, chunkname)
  if ends_at_eof(err) or ends_at_eof(expression_err) then return nil, 'incomplete' end
  return nil, err
end

return M
