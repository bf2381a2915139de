-- The command line of bin/fused: runs scripts and -e code as luajit does, with `fused` loaded as
-- a global, and the REPL when there is neither (or with -i). Returns the exit status.
local errors = require 'fused.repl.errors'

local M = {}

M.USAGE = [==[
usage: fused [options] [script [args...]]
       fused th [options] [script [args...]]   (a Torch7 program, as Torch7's th ran it)
  -e CODE       run CODE
  -i            enter the REPL after the script or the -e code
  --traceback   print each error's full traceback, not only its message
  -h, --help    print this text
With no script and no -e, fused starts the REPL (`fused th`: in Torch7 mode, docs/torch7.md).
`fused` is a global everywhere (and `torch` under `fused th`); a script gets
its arguments in `arg` and `...`, as with luajit. FUSED_NO_READLINE=1 turns line editing off.]==]

-- Runs f(...), printing an error as 'fused: where: message' (and its traceback when asked).
local function run(f, traceback, ...)
  local ok, e = xpcall(f, errors.handler, ...)
  if ok then return true end
  io.stderr:write('fused: ', e.message, '\n')
  if traceback then io.stderr:write(e.traceback, '\n') end
  return false
end

local function usage_error(message)
  io.stderr:write('fused: ', message, '\n', M.USAGE, '\n')
  return 1
end

local function compile_error(message)
  io.stderr:write('fused: ', message, '\n')
  return 1
end

-- args as luajit gives a script's: args[0] the program, args[1..] its arguments.
function M.main(args)
  if args[1] == 'th' then
    require('fused.th').install()
    local rest = { [0] = args[0] .. ' th' }
    for k = 2, #args do rest[k - 1] = args[k] end
    args = rest
  end
  local codes, interactive, traceback, i = {}, false, false, 1
  while args[i] do
    local a = args[i]
    if a == '-h' or a == '--help' then
      io.stdout:write(M.USAGE, '\n')
      return 0
    elseif a == '-e' then
      if not args[i + 1] then return usage_error("option '-e' expected code after it") end
      codes[#codes + 1] = args[i + 1]
      i = i + 1
    elseif a == '-i' then
      interactive = true
    elseif a == '--traceback' then
      traceback = true
    elseif a == '--' then
      i = i + 1
      break
    elseif a:sub(1, 1) == '-' then
      return usage_error(string.format("unknown option '%s'", a))
    else
      break
    end
    i = i + 1
  end
  local fused = require 'fused'
  rawset(_G, 'fused', fused)
  for _, code in ipairs(codes) do
    local f, err = loadstring(code, '=(command line)')
    if not f then return compile_error(err) end
    if not run(f, traceback) then return 1 end
  end
  local script = args[i]
  if script then
    local script_args = { [-1] = args[0], [0] = script }
    for k = i + 1, #args do script_args[#script_args + 1] = args[k] end
    rawset(_G, 'arg', script_args)
    local f, err = loadfile(script)
    if not f then return compile_error(err) end
    if not run(f, traceback, unpack(script_args)) then return 1 end
  end
  if interactive or (not script and #codes == 0) then
    require('fused.repl').run(fused, { traceback = traceback })
  end
  return 0
end

return M
