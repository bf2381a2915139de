-- fused's REPL, as Torch7's `th`: every expression's values are printed (no '='), a `local`
-- lives on across lines (repl/chunk.lua), an unfinished chunk continues at a '>>' prompt, an
-- error is shown at the user's input, without a traceback (repl/errors.lua). Line editing, history and Tab
-- completion come from GNU readline (fused/readline.lua); without it, plain lines from stdin.
--
--   local session = require('fused.repl').session({ out = f, err = f })
--   session:feed('x = 1 + 1')  -- 'done', or 'more' while the chunk is unfinished
local ffi = require 'ffi'
local chunk = require 'fused.repl.chunk'
local errors = require 'fused.repl.errors'
local show = require 'fused.repl.show'
local interrupt = require 'fused.train.interrupt'
local help = require 'fused.help'

local M = {}

local HELP = [[
Type Lua: the values of an expression are printed; `local x = ...` stays defined.
An unfinished chunk (function f() ...) continues at the '>>' prompt.
  help(x), ?x  what x is: help(fused.tanh), help('tanh'), ?fused.nn.LSTM
  :traceback   the full traceback of the latest error
  :help        this text
Tab completes names, fields and methods (x:ad<Tab>); Up recalls earlier lines.
Ctrl-C drops the line (or the unfinished chunk), or stops what runs; Ctrl-D quits.]]

local Session = {}
Session.__index = Session

-- opts: out and err (files; default stdout and stderr), traceback (print each error's full
-- traceback too). The session's globals are a table over the REPL's own (help) over _G, so
-- that a name the user defines never replaces a global that libraries read.
function M.session(opts)
  opts = opts or {}
  local self = setmetatable({
    pending = {},
    out = opts.out or io.stdout,
    err = opts.err or io.stderr,
    traceback = opts.traceback,
  }, Session)
  local builtins = setmetatable({
    help = function(...) self:help(select('#', ...) > 0, ...) end,
  }, { __index = _G })
  self.env = setmetatable({}, { __index = builtins })
  return self
end

-- Prints what x is (fused/help.lua), or says that it has no entry; given: whether x was passed.
function Session:help(given, x)
  local fused = self.env.fused -- the copy the user's values came from
  if type(fused) ~= 'table' then fused = require 'fused' end
  local text, why = help.text(fused, x, given)
  if text then self.out:write(text, '\n') else self.err:write(why, '\n') end
end

-- ?x: help on the value of the expression x, else on x as a name ('?tanh', '?t:add').
function Session:help_prefix(src)
  local f, is_expression = chunk.compile(src, '=input', self.env)
  if f and is_expression then
    local ok, value = pcall(f)
    if ok and value ~= nil then return self:help(true, value) end
  end
  self:help(true, (src:gsub('^%s+', ''):gsub('%s+$', '')))
end

function Session:show_error(e)
  self.last_traceback = e.traceback
  self.err:write(e.message, '\n')
  if self.traceback then self.err:write(e.traceback, '\n') end
end

function Session:show_results(ok, ...)
  if not ok then return self:show_error(...) end
  local n = select('#', ...)
  if n == 0 then return end
  local shown, text = xpcall(show.values, errors.handler, n, ...) -- a __tostring may raise
  if not shown then return self:show_error(text) end
  self.out:write(text, '\n')
end

function Session:command(line)
  local name = line:match('^%s*:(%S*)')
  if name == 'help' then
    self.out:write(HELP, '\n')
  elseif name == 'traceback' then
    self.out:write(self.last_traceback or 'no error yet', '\n')
  else
    self.err:write(string.format("unknown command ':%s' (:help lists them)\n", name))
  end
end

-- One line of input. Returns 'more' while the chunk so far is unfinished, else 'done' once it
-- has run and its values or its error are printed. A line starting with ':' is a command, one
-- starting with '?' asks for help.
function Session:feed(line)
  if #self.pending == 0 and line:match('^%s*:') then
    self:command(line)
    return 'done'
  end
  if #self.pending == 0 and line:match('^%s*%?') then
    self:help_prefix(line:match('^%s*%?(.*)$'))
    return 'done'
  end
  self.pending[#self.pending + 1] = line
  local f, err = chunk.compile(table.concat(self.pending, '\n'), '=input', self.env)
  if err == 'incomplete' then return 'more' end
  self.pending = {}
  if not f then
    self:show_error({ message = err, traceback = err })
  else
    self:show_results(xpcall(f, errors.handler))
  end
  return 'done'
end

-- Ctrl-C at the prompt: the unfinished chunk, if any, is dropped.
function Session:interrupt()
  self.pending = {}
end

-- Where history is kept: $XDG_STATE_HOME/fused_history, else ~/.fused_history.
function M.history_path()
  local state, home = os.getenv('XDG_STATE_HOME'), os.getenv('HOME')
  if state and state ~= '' then return state .. '/fused_history' end
  if home and home ~= '' then return home .. '/.fused_history' end
end

-- The two lines printed at start: versions, threads, CUDA; then what input offers.
-- history: its file, or nil and why there is none (history_why).
function M.banner(fused, readline, history, history_why)
  local cuda = (fused.cuda.is_available() or fused.cuda.is_emulated()) and fused.cuda.why()
    or 'CUDA unavailable: ' .. fused.cuda.why()
  local first = string.format('fused %s on %s, %d threads. %s', fused.version, jit.version,
                              fused.get_num_threads(), cuda)
  local second
  if readline.why then
    second = 'No line editing or history (' .. readline.why .. '): plain input.'
  else
    second = history_why and 'No history kept: ' .. history_why .. '.\nTab completes.'
      or 'Tab completes, Up recalls history' .. (history and ' (' .. history .. ')' or '') .. '.'
  end
  return first .. '\n' .. second .. ' :help for help, Ctrl-D quits.\n'
end

ffi.cdef [[
typedef struct _IO_FILE FILE;
extern FILE *stdin;
void clearerr(FILE *stream);

struct sigaction { /* Linux's */
  void (*sa_handler)(int);
  unsigned long sa_mask[16];
  int sa_flags;
  void (*sa_restorer)(void);
};
int sigaction(int signum, const struct sigaction *action, struct sigaction *old);
]]
local SIGINT = 2

-- A line from stdin, as readline.read gives one: false when Ctrl-C interrupted the read (SIGINT
-- caught as a flag, c/core/signal.c, rather than by LuaJIT's handler, which would raise
-- 'interrupted!' after the next Enter); the terminal has dropped what was typed.
local function plain_read(prompt)
  io.stdout:write(prompt)
  io.stdout:flush()
  local ok, line = interrupt.catching(function()
    local line = io.read('*l')
    if interrupt.received() then return false end
    return line
  end)
  if not ok then error(line, 0) end
  if line == false then
    ffi.C.clearerr(ffi.C.stdin) -- the interrupted read left its error flag set
    io.stdout:write('\n')
  end
  return line
end

-- Runs the REPL on the terminal until end of input. opts as session's.
function M.run(fused, opts)
  local session = M.session(opts)
  local readline = require 'fused.readline'
  local read, history, history_why = plain_read, nil, nil
  if not readline.why then
    history = M.history_path()
    local used
    if history then used, history_why = readline.use_history(history) end
    if not used then history = nil end
    local complete = require 'fused.repl.complete'
    readline.set_completer(function(word) return complete.candidates(word, session.env) end)
    read = readline.read
  end
  io.stdout:write(M.banner(fused, readline, history, history_why))
  -- LuaJIT's handler makes Ctrl-C an 'interrupted!' error in the code that runs, once: it then
  -- leaves the default action (the process ends). It is put back before each line runs.
  local luajit_sigint = ffi.new('struct sigaction')
  ffi.C.sigaction(SIGINT, nil, luajit_sigint)
  local state = 'done'
  while true do
    local line = read(state == 'more' and '>> ' or '> ')
    if line == nil then break end
    if line then
      ffi.C.sigaction(SIGINT, luajit_sigint, nil)
      state = session:feed(line)
    else
      session:interrupt()
      state = 'done'
    end
  end
  io.stdout:write('\n')
end

return M
