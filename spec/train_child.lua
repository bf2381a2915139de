-- examples/train.lua in a child luajit, for the specs of what reaches the terminal, the current
-- directory or the exit status: on the libfused this process runs on, with lua/ on LUA_PATH.
local helper = require 'spec.helper'

local M = {}

-- Absolute paths, for child processes that run from another directory.
function M.absolute(p) return p:match('^/') and p or io.popen('pwd'):read('*l') .. '/' .. p end

local here = M.absolute(debug.getinfo(1, 'S').source:match('^@(.*/)') or './')
local lib_path = M.absolute(require('fused.lib').path)
M.script = here .. '../examples/train.lua'

-- Runs `luajit <words>` from directory cwd after the shell words `prefix` (variables, or a
-- launcher), its output (stdout and stderr) to the file out; returns its exit status (or the
-- signal that ended it) and what it printed.
function M.luajit(cwd, prefix, words, out)
  local status = os.execute(string.format("cd %s && LUA_PATH='%s../lua/?.lua;%s../lua/?/init.lua;;' "
                                          .. 'FUSED_LIB=%s %s luajit %s > %s 2>&1', cwd, here, here,
                                          lib_path, prefix, words, out))
  local code = status % 256 == 0 and status / 256 or 'signal ' .. status % 128
  return code, helper.read(out)
end

-- A new empty directory for a spec's files, and path(name), a file in it.
function M.scratch()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute('mkdir -p ' .. dir) == 0)
  return dir, function(name) return dir .. '/' .. name end
end

-- The words of a shell command line that pass the strings of list as they are.
function M.quote(list)
  local words = {}
  for i, s in ipairs(list) do words[i] = "'" .. s:gsub("'", "'\\''") .. "'" end
  return table.concat(words, ' ')
end

return M
