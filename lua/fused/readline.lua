-- GNU readline through the FFI, for the REPL: line editing, history kept in a file, Tab
-- completion by a Lua function, Ctrl-C discarding the line. Where readline cannot be used (FUSED_NO_READLINE is set, stdin is
-- not a terminal, libreadline.so.8 is missing) the module holds only `why`, the reason.
local ffi = require 'ffi'

ffi.cdef [[
int isatty(int fd);
char *strdup(const char *s);
void free(void *p);
]]

if os.getenv('FUSED_NO_READLINE') then return { why = 'FUSED_NO_READLINE is set' } end
if ffi.C.isatty(0) == 0 then return { why = 'stdin is not a terminal' } end
local ok, rl = pcall(ffi.load, 'libreadline.so.8')
if not ok then return { why = 'libreadline.so.8 did not load (apt-get install libreadline8)' } end

ffi.cdef [[
typedef char *rl_compentry_func_t(const char *text, int state);
typedef int rl_command_func_t(int count, int key);
char *readline(const char *prompt);
void add_history(const char *line);
int read_history(const char *filename);
int append_history(int n, const char *filename);
int history_truncate_file(const char *filename, int lines);
extern rl_compentry_func_t *rl_completion_entry_function;
extern const char *rl_basic_word_break_characters;
extern const char *rl_readline_name;
extern int rl_completion_append_character;
int rl_bind_key(int key, rl_command_func_t *function);
int rl_insert_text(const char *text);
int rl_newline(int count, int key);
void rl_redisplay(void);
extern int rl_point;
extern int rl_end;

struct termios { /* Linux's */
  unsigned int c_iflag, c_oflag, c_cflag, c_lflag;
  unsigned char c_line, c_cc[32];
  unsigned int c_ispeed, c_ospeed;
};
int tcgetattr(int fd, struct termios *termios);
int tcsetattr(int fd, int when, const struct termios *termios);
]]

local M = { lib = rl } -- the handle kept for the program's life: the callback points into it

local HISTORY_LINES = 1000
-- Lua strings that readline keeps pointers to, anchored here. A word for completion runs from
-- one of these characters to the cursor: 'fused.nn.Li' and 'x:ad' are words, '(' is a break.
local WORD_BREAKS = " \t\n\"'`><=;+-*/%^~#&|(){}[],"
local NAME = 'fused' -- for $if fused in ~/.inputrc

rl.rl_basic_word_break_characters = WORD_BREAKS
rl.rl_readline_name = NAME

local history_path

-- Reads earlier sessions' lines from path (created if missing), cut to the last 1000, and
-- appends each new line to it as it is entered, so a crash loses none. Returns true, or false
-- and why not: what is at path must be a regular file (opening a FIFO for appending blocks, and
-- readline reads the file whole) of at most MAX_HISTORY_BYTES.
local MAX_HISTORY_BYTES = 16 * 2 ^ 20
function M.use_history(path)
  local file = require 'fused.file'
  local ok, reader = pcall(file.open, 'history', path)
  if ok then
    local size = reader.size
    reader:close()
    if size > MAX_HISTORY_BYTES then
      return false, string.format('%s: %d bytes, larger than any history of %d lines', path, size,
                                  HISTORY_LINES)
    end
  elseif file.exists(path) then
    return false, (tostring(reader):gsub('^history: ', ''))
  end
  local f, why = io.open(path, 'a')
  if not f then return false, why end
  f:close()
  rl.history_truncate_file(path, HISTORY_LINES)
  rl.read_history(path)
  history_path = path
  return true
end

-- Ctrl-C at the prompt discards the line. The terminal's interrupt key is off while readline
-- reads, so that Ctrl-C comes as a key (bound here) rather than as SIGINT: LuaJIT's handler
-- would raise 'interrupted!' once the line is entered, ending the session. It is on again while
-- the line runs, so that Ctrl-C stops a computation.
local VINTR, DISABLED, TCSANOW = 0, 0, 0
local terminal, reading = ffi.new('struct termios'), ffi.new('struct termios')
local interrupted = false
local on_ctrl_c = ffi.cast('rl_command_func_t *', function(_, key)
  interrupted = true
  rl.rl_point = rl.rl_end
  rl.rl_insert_text('^C') -- shown, as a shell shows it; the line is dropped anyway
  rl.rl_redisplay()
  return rl.rl_newline(1, key)
end)
rl.rl_bind_key(3, on_ctrl_c)

-- A line typed at prompt, without its newline; false when Ctrl-C discarded it; nil at end of
-- input (Ctrl-D). A line that is not blank goes into the history.
function M.read(prompt)
  local saved = ffi.C.tcgetattr(0, terminal) == 0
  if saved then
    ffi.copy(reading, terminal, ffi.sizeof(terminal))
    reading.c_cc[VINTR] = DISABLED
    ffi.C.tcsetattr(0, TCSANOW, reading)
  end
  interrupted = false
  local p = rl.readline(prompt)
  if saved then ffi.C.tcsetattr(0, TCSANOW, terminal) end
  if interrupted then
    ffi.C.free(p)
    return false
  end
  if p == nil then return nil end
  local line = ffi.string(p)
  ffi.C.free(p)
  if line:match('%S') then
    rl.add_history(line)
    if history_path then rl.append_history(1, history_path) end
  end
  return line
end
-- A callback (the completer) must not be entered from a trace compiled by the JIT.
jit.off(M.read)

-- complete(word) -> a list of replacements for the word before the cursor. readline calls the
-- generator with state 0 for a new word, then again for each further match, and frees what it
-- returns. The callback is made once: LuaJIT has few callback slots and never frees them.
local complete, matches = nil, {}
local generator = ffi.cast('rl_compentry_func_t *', function(text, state)
  if state == 0 then
    rl.rl_completion_append_character = 0 -- 'x:add', not 'x:add '
    local found, list = pcall(complete, ffi.string(text))
    matches = found and list or {}
  end
  local m = matches[state + 1]
  return m and ffi.C.strdup(m) or nil
end)

function M.set_completer(fn)
  complete = fn
  rl.rl_completion_entry_function = generator
end

return M
